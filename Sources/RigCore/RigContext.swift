import Coordination
import Foundation
import Logging
import PicoLink

/// What every supervisor of a rig shares: the connector, the journal, the clock, the logger.
struct RigContext: Sendable {
    let connector: any DeviceConnector
    let journal: any RunJournal
    let clock: any TimeSource
    let calendar: Calendar
    let logger: Logger
    let toolVersion: String
    /// Connect backoff: 1 s doubling to 60 s, 20 % jitter.
    let backoff: ReconnectPolicy
    /// Called when the journal fails (the rig then stops).
    let fatal: @Sendable (any Error) -> Void
}
