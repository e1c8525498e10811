import Foundation
import Testing

@testable import PicoSimulator

/// Damaged scripts and garbage never crash or wedge the device: after each one (and a `Z` if it is still
/// running after a while) it still answers `t`.
@Suite struct MutatedScriptTests {
    @Test func damagedExamplesLeaveTheDeviceResponsive() throws {
        let files = ["CA.mscr", "LSV_10k.mscr", "CV_nscans.mscr", "SWV.mscr", "DPV.mscr", "EIS.mscr"]
        let scripts = try files.map { Array(try ExampleScripts.text($0).utf8) }
        var state: UInt64 = 0x00C0_FFEE
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let harness = PicoHarness()
        let alphabet = Array("0123456789-+.,;:()\"#mkunpiMaz_ \n\u{7F}\u{01}".utf8)
        var errorReplies = 0
        for _ in 0..<80 {
            var script = scripts[next(scripts.count)]
            for _ in 0..<(1 + next(3)) {
                let position = 2 + next(script.count - 4)
                switch next(3) {
                case 0: script[position] = alphabet[next(alphabet.count)]
                case 1: script.remove(at: position)
                default: script.insert(alphabet[next(alphabet.count)], at: position)
                }
            }
            harness.pico.receive(script)
            var settled = waitUntilQuiet(harness, seconds: 2)
            if !settled {
                // Still measuring (a damaged step can make a very long sweep): abort like a host would.
                harness.pico.receive(Array("Z\n".utf8))
                settled = waitUntilQuiet(harness, seconds: 5)
            }
            #expect(settled, "device did not settle")
            let reply = harness.exchange("\n\nt\n", terminator: "R*\n", timeout: 5)
            #expect(
                reply.hasSuffix("tespico1209#Nov 22 2026 00:00:00\nR*\n"),
                "\(String(decoding: script, as: UTF8.self))"
            )
            if harness.text.contains("!4") { errorReplies += 1 }
        }
        #expect(errorReplies > 0)
    }

    /// Waits until every byte was read, no script runs and the output has not grown for 20 ms.
    func waitUntilQuiet(_ harness: PicoHarness, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var lastCount = -1
        while Date() < deadline {
            let count = harness.recorder.bytes.withLock { $0.count }
            if count == lastCount, harness.pico.pendingByteCount == 0, !harness.pico.isRunningScript { return true }
            lastCount = count
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }
}
