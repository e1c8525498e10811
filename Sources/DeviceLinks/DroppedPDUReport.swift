import BLEHost
import Logging
import Synchronization

/// Tells the user what the ATT bearer dropped (an oversized notification, a response nobody asked
/// for, a malformed PDU), through the link's logger: the first `limit` as warnings with their
/// reason, the rest at debug level (seen with `-v`), and the total when the link closes, so a hostile
/// peer cannot flood the terminal and nothing is dropped without a word.
final class DroppedPDUReport: Sendable {
    private let device: String
    private let limit: Int
    private let reported = Atomic<Int>(0)
    private let logger: Logger

    init(device: String, logger: Logger, limit: Int = 10) {
        self.device = device
        self.logger = logger
        self.limit = limit
    }

    /// Installs the report as `bearer`'s diagnostic handler.
    func install(on bearer: ATTBearer) {
        bearer.setDiagnosticHandler { [self] message in
            let count = reported.add(1, ordering: .relaxed).newValue
            if count <= limit {
                logger.warning("\(device): \(message)")
            } else {
                logger.debug("\(device): \(message)")
            }
            if count == limit { logger.warning("\(device): ATT: further dropped PDUs are logged at debug level (-v)") }
        }
    }

    /// The total, when more were dropped than were reported one by one.
    func finish(dropped: Int) {
        guard dropped > limit else { return }
        logger.warning("\(device): ATT: \(dropped) PDUs dropped in all")
    }
}
