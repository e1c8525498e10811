import BLEHost
import BLELinux
import DeviceLinks
import Synchronization
import Testing

/// The scanner's failures before a scan starts are typed, with the transport named; a scan's own
/// path is run against the Bumble peer (`ScanCommandPeerTests`) and in the kernel tier.
@Suite struct DeviceScannerTests {
    /// hcipico's own host on a TCP port nobody listens on: a system error naming the transport, and
    /// nothing reported.
    @Test func aTransportThatCannotOpenIsASystemError() async throws {
        let scanner = DeviceScanner(transport: try TransportSpec(parsing: "tcp:127.0.0.1:1"))
        let reports = ReportCount()
        do {
            let outcome = try await scanner.scan(ScanParameters(), for: .seconds(1)) { _ in reports.add() }
            Issue.record("scanned: \(outcome)")
        } catch {
            guard case .system(let cause) = error.cause else {
                Issue.record("cause \(error.cause)")
                return
            }
            #expect(cause.kind == .refused, "\(cause)")
            #expect(error.description.contains("127.0.0.1:1"), "\(error)")
        }
        #expect(reports.value == 0)
    }
}

/// How many advertisements a scan reported.
final class ReportCount: Sendable {
    private let count = Atomic(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
