/// A typed method of one technique: its parameters as properties, generated from `Specs/methodscript/`.
/// `Method` holds any of them by technique and parameter keys; `MethodScriptRenderer` writes the script.
public protocol TechniqueMethod: Sendable, Hashable {
    /// The technique.
    static var technique: Technique { get }
    /// The output variables of its measurement loop, in order.
    static var outputs: [String] { get }
    /// The script's names for the outputs (`var` and `pck_add`).
    static var variables: [String] { get }
    /// Its parameters in the table's order.
    static var parameters: [MethodParameter] { get }
    /// Every parameter by its key.
    var values: [String: Double] { get }
    /// How many points the measurement makes.
    var pointCount: Double { get }
    /// The bandwidth the script asks for (Hz).
    var bandwidth: Double { get }
    /// Seconds between points, when they come at a steady rate.
    var pointInterval: Double? { get }
    /// The potential held before and at the start (nil: the cell stays off).
    var startPotential: Double? { get }
    /// Every potential the measurement applies at its extremes.
    var appliedPotentials: [Double] { get }
    /// How many times the measurement loops run in turn (the renderer wraps them in a `loop`).
    var repetitions: Int { get }
    /// The measurement loops' lines, run one after the other, each with one package per point.
    var loopLines: [String] { get }
    /// What the technique's rules refuse, in words.
    func ruleViolations() -> [String]
}

extension TechniqueMethod {
    /// The method as a `Method` (validated with `Method.validate`, rendered with `Method.script`).
    public var method: Method { Method(technique: Self.technique, checkedValues: values) }
}
