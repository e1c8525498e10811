/// A script the device was still running when this program connected (a run whose host went away: a lost
/// link, a killed process, another program): it was aborted and the cell switched off, and the next run
/// on the device says so.
public struct LeftoverScript: Sendable, Equatable, CustomStringConvertible {
    /// How it was found: `its output was arriving`, `no reply to t within 2 seconds`.
    public var evidence: String
    /// Whether the device answered `Z` as a device running a script does.
    public var aborted: Bool
    /// The cell after it.
    public var cell: CellOutcome

    /// A script found running.
    public init(evidence: String, aborted: Bool, cell: CellOutcome) {
        self.evidence = evidence
        self.aborted = aborted
        self.cell = cell
    }

    /// `a script was still running at connect (its output was arriving): aborted; cell off confirmed at …`.
    public var description: String {
        "a script was still running at connect (\(evidence)): \(aborted ? "aborted" : "no reply to Z"); \(cell)"
    }
}
