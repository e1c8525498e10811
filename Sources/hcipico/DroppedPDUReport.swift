import BLEHost
import Synchronization

/// Tells the user on standard error what the ATT bearer dropped (an oversized notification, a
/// response nobody asked for, a malformed PDU): the first `limit` with their reason as they happen,
/// then only counted, and the total when the link closes, so a hostile peer cannot flood the terminal
/// and nothing is dropped without a word.
final class DroppedPDUReport: Sendable {
    private let device: String
    private let limit: Int
    private let reported = Atomic<Int>(0)

    init(device: String, limit: Int = 10) {
        self.device = device
        self.limit = limit
    }

    /// Installs the report as `bearer`'s diagnostic handler.
    func install(on bearer: ATTBearer) {
        bearer.setDiagnosticHandler { [self] message in
            let count = reported.add(1, ordering: .relaxed).newValue
            if count <= limit { StandardError.report("\(device): \(message)") }
            if count == limit { StandardError.report("\(device): ATT: further dropped PDUs are only counted") }
        }
    }

    /// The total, when more were dropped than were reported one by one.
    func finish(dropped: Int) {
        guard dropped > limit else { return }
        StandardError.report("\(device): ATT: \(dropped) PDUs dropped in all")
    }
}
