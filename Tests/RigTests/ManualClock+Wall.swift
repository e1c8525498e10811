import Coordination

/// The rig's schedules speak wall-clock seconds; these read and move a manual clock in them.
extension ManualClock {
    /// The wall-clock time at which the earliest wake or sleep comes due.
    var nextDeadline: Double? {
        pendingDeadlines.first.map { deadline in
            let ahead = deadline - now
            return wallTime + Double(ahead.components.seconds) + Double(ahead.components.attoseconds) * 1e-18
        }
    }

    /// Moves the clock forward until the wall clock reads `target`.
    func advance(toWallTime target: Double) {
        advance(by: .seconds(target - wallTime))
    }
}
