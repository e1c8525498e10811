import BLEHost
import BLELinux
import BLETesting
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

    /// A controller that accepts the connection and never answers: the host's start waits for its
    /// reset; cancelling the scan then ends it as interrupted, not as an error.
    @Test func aScanCancelledWhileTheHostStartsIsInterrupted() async throws {
        let controller = try LoopbackPort(listening: true)
        defer { controller.close() }
        let scanner = DeviceScanner(transport: try TransportSpec(parsing: "tcp:127.0.0.1:\(controller.port)"))
        let scan = Task { try await scanner.scan(ScanParameters(), for: .seconds(60)) { _ in } }
        scan.cancel()
        #expect(try await scan.value.ending == .interrupted)
    }
}

/// How many advertisements a scan reported.
final class ReportCount: Sendable {
    private let count = Atomic(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
