/// An ended run as the analysis needs it: which device, its number, its script, whether its points
/// were pruned, and whether it is analysed already (read for many runs in one transaction).
public struct AnalysisJob: Sendable, Equatable {
    /// The journal's row id.
    public var run: Int64
    public var device: String
    public var deviceRun: Int
    public var script: String
    public var pruned: Bool
    /// Whether its end is committed.
    public var ended: Bool
    /// Whether it has an analysis already.
    public var analysed: Bool
}
