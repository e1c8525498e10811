/// A technique with its parameter values: what `connect`, `console` and the rig run instead of a
/// hand-written script. `validate` checks every bound before anything is sent; `script()` renders it.
///
/// ```swift
/// var cv = CyclicVoltammetry()
/// cv.scanRate = 0.05
/// let text = try cv.method.script()   // checked, then MethodSCRIPT
/// ```
public struct Method: Sendable, Hashable {
    /// The technique.
    public let technique: Technique
    /// Every parameter's value, by key (the defaults where none was given).
    public let values: [String: Double]

    /// The technique's defaults with `values` over them.
    /// - Throws: `MethodError.unknownParameter` for a key the technique does not have.
    public init(technique: Technique, values: [String: Double] = [:]) throws(MethodError) {
        let keys = Set(technique.parameters.map(\.key))
        if let unknown = values.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .unknownParameter(unknown, technique: technique)
        }
        self.init(technique: technique, checkedValues: values)
    }

    init(technique: Technique, checkedValues: [String: Double]) {
        self.technique = technique
        self.values = technique.method(checkedValues).values
    }

    /// The typed method.
    public var typed: any TechniqueMethod { technique.method(values) }

    /// Every problem: each value against its parameter's bounds, the technique's rules, the potentials
    /// against the instrument's span, the points' rate against `maximumPointRate` (per second: what the
    /// link carries) and their number against `InstrumentLimit.points`. Empty when the method can run.
    public func problems(maximumPointRate: Double? = InstrumentLimit.sampleRateBle.maximum) -> [MethodProblem] {
        var problems: [MethodProblem] = []
        for parameter in technique.parameters {
            let value = values[parameter.key] ?? parameter.defaultValue
            if let problem = parameter.problem(with: value) {
                let unit = parameter.unit.isEmpty ? "" : " \(parameter.unit)"
                problems.append(
                    MethodProblem(
                        parameter: parameter.key,
                        message: "\(parameter.key) = \(MethodNumber.plain(value))\(unit): \(problem)"
                    )
                )
            }
        }
        // Rules and derived values mean little while a value is out of its own bounds.
        guard problems.isEmpty else { return problems }
        let method = typed
        problems += method.ruleViolations().map { MethodProblem(parameter: nil, message: $0) }
        let span = InstrumentLimit.potential
        for potential in method.appliedPotentials where !span.contains(potential) {
            problems.append(
                MethodProblem(
                    parameter: nil,
                    message: "the method applies \(MethodNumber.plain(potential)) V, outside the instrument's "
                        + "span (\(span.bounds))"
                )
            )
            break
        }
        let points = method.pointCount
        if let most = InstrumentLimit.points.maximum, !(points <= most) {
            problems.append(
                MethodProblem(
                    parameter: nil,
                    message:
                        "the method makes \(MethodNumber.plain(points)) points, more than \(MethodNumber.plain(most))"
                )
            )
        }
        if let interval = method.pointInterval, let rate = maximumPointRate, interval * rate < 1 - 1e-9 {
            problems.append(
                MethodProblem(
                    parameter: nil,
                    message: "one point every \(MethodNumber.plain(interval * 1000)) ms is "
                        + "\(MethodNumber.plain((1 / interval).rounded())) points/s, more than the "
                        + "\(MethodNumber.plain(rate)) points/s the link carries"
                )
            )
        }
        if (try? MethodScriptRenderer.pgstatMode(for: method)) == nil {
            problems.append(
                MethodProblem(
                    parameter: nil,
                    message: "the applied potentials span "
                        + "\(MethodNumber.plain(MethodScriptRenderer.window(of: method))) V, wider than any "
                        + "potentiostat mode allows at \(MethodNumber.plain(method.bandwidth)) Hz"
                )
            )
        }
        return problems
    }

    /// Throws every problem `problems` finds, or returns.
    public func validate(maximumPointRate: Double? = InstrumentLimit.sampleRateBle.maximum) throws(MethodError) {
        let found = problems(maximumPointRate: maximumPointRate)
        if !found.isEmpty { throw .invalid(found) }
    }

    /// The MethodSCRIPT the method runs, from its `e` line to its final empty line, after `validate`.
    public func script(maximumPointRate: Double? = InstrumentLimit.sampleRateBle.maximum) throws(MethodError) -> String
    {
        try validate(maximumPointRate: maximumPointRate)
        return MethodScriptRenderer.script(for: typed)
    }
}
