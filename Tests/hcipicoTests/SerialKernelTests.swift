import BLEWire
import Foundation
import Glibc
import Testing

/// `hcipico serial` on the kernel path (the default transport) against a real Linux kernel: run in the
/// qemu guest of `Tests/Peers/kernel-tier.sh` (`BLE_KERNEL_TESTS=1`, `BLE_PEER` = a Bumble VSP echo
/// peripheral reached through hci0). Skipped elsewhere.
@Suite(.serialized, .enabled(if: getenv("BLE_KERNEL_TESTS") != nil, "needs the kernel tier's guest"))
struct SerialKernelTests {
    @Test func serialRoundTripsThroughTheVSPEchoOverTheKernelsL2CAPSocket() async throws {
        let peer = try #require(getenv("BLE_PEER").map { String(cString: $0) }, "BLE_PEER is not set")
        var generator = SystemRandomNumberGenerator()
        let input = (0..<2_048).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let outcome = try await runHCIPico(
            ["serial", peer, "--random", "--timeout", "60", "--idle", "2"],
            input: input
        )
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.output.count == input.count)
        #expect(outcome.output == input)
    }
}
