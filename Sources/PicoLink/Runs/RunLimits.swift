import Foundation

/// Limits a device may declare for its runs: a value past one stops the run (`Z`, then the cell
/// switched off) with the limit as its reason. Checked on every package as it is recorded, without
/// allocating unless a limit is passed.
public struct RunLimits: Sendable, Equatable {
    /// The largest absolute current (A) a current value may have.
    public var maximumCurrent: Double?
    /// The potentials (V) a potential value must stay within.
    public var potentialWindow: ClosedRange<Double>?
    /// The longest a run may take.
    public var longestRun: Duration?

    /// Limits; none by default.
    public init(maximumCurrent: Double? = nil, potentialWindow: ClosedRange<Double>? = nil, longestRun: Duration? = nil)
    {
        self.maximumCurrent = maximumCurrent
        self.potentialWindow = potentialWindow
        self.longestRun = longestRun
    }

    /// Whether no limit is set.
    public var isEmpty: Bool { maximumCurrent == nil && potentialWindow == nil && longestRun == nil }

    /// Why `package` is past a limit (`current -1.2 mA (ba) is past the limit of 1 mA`), or nil.
    public func breach(in package: PicoPackage) -> String? {
        guard maximumCurrent != nil || potentialWindow != nil else { return nil }
        for value in package.values {
            switch value.variable.rangeKind {
            case .current:
                if let maximumCurrent, abs(value.value) > maximumCurrent {
                    return "current \(SIFormat.format(value.value, unit: "A")) (\(value.variable)) in package "
                        + "\(package.index) is past the limit of \(SIFormat.format(maximumCurrent, unit: "A"))"
                }
            case .potential:
                if let potentialWindow, !potentialWindow.contains(value.value), !value.value.isNaN {
                    return "potential \(SIFormat.format(value.value, unit: "V")) (\(value.variable)) in package "
                        + "\(package.index) is outside the window \(SIFormat.format(potentialWindow.lowerBound, unit: "V"))"
                        + " to \(SIFormat.format(potentialWindow.upperBound, unit: "V"))"
                }
            case .none:
                break
            }
        }
        return nil
    }

    /// An amount with an optional SI prefix and unit: `1m`, `1 mA`, `500u`, `-0.5`, `2V`; nil when it is not one.
    public static func amount(_ text: String, unit: String) -> Double? {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        if body.hasSuffix(unit) { body = body.dropLast(unit.count) }
        body = Substring(body.trimmingCharacters(in: .whitespaces))
        let prefixes: [Character: Double] = ["p": 1e-12, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "m": 1e-3, "k": 1e3]
        var scale = 1.0
        if let last = body.last, let factor = prefixes[last] {
            scale = factor
            body = body.dropLast()
        }
        guard let number = Double(body.trimmingCharacters(in: .whitespaces)), number.isFinite else { return nil }
        return number * scale
    }

    /// A potential window `LOW,HIGH` (`-0.5,1`, `-500m,1V`); nil when it is not one.
    public static func window(_ text: String) -> ClosedRange<Double>? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = amount(String(parts[0]), unit: "V"),
            let high = amount(String(parts[1]), unit: "V"), low <= high
        else { return nil }
        return low...high
    }
}
