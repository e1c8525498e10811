/// What became of the cell after a run that did not end normally, or of a script found still running on
/// a new connection: written with the run (end markers, the journal, the status page).
public enum CellOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The device ran `cell_off` to its end at this time (Unix seconds).
    case offConfirmed(at: Double)
    /// The cell could not be switched off, or not confirmed, for this reason (the link went away, the
    /// device did not answer): it may still be on.
    case unknown(String)

    /// `cell off confirmed at 2026-11-28T15:00:00.120Z`, `cell state unknown: the link was lost`.
    public var description: String {
        switch self {
        case .offConfirmed(let time): "cell off confirmed at \(UTCTime.iso8601(time))"
        case .unknown(let reason): "cell state unknown: \(reason)"
        }
    }

    /// Whether the cell may still be on.
    public var isUnknown: Bool {
        if case .unknown = self { return true }
        return false
    }
}
