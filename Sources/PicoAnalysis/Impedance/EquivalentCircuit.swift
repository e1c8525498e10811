public import ComplexModule
import RealModule

/// An equivalent circuit written in Boukamp's circuit description code, as PSTrace and pypalmsens take it:
/// elements side by side are in series, a parenthesis holds elements in parallel, a parenthesis within it
/// elements in series again, and so on. `R(RC)` is a resistor in series with a resistor and a capacitor
/// in parallel (a Randles cell without diffusion); `R(Q(RW))` the Randles cell with a constant phase
/// element and Warburg diffusion.
public struct EquivalentCircuit: Sendable, Hashable, CustomStringConvertible {
    indirect enum Node: Sendable, Hashable {
        /// An element and the index of its first parameter.
        case element(CircuitElement, Int)
        case series([Node])
        case parallel([Node])
    }

    /// One parameter of the circuit.
    public struct Parameter: Sendable, Hashable {
        /// Its name: the element's letter and number (`R1`, `Q1`), `n` after a CPE's (`Q1.n`).
        public let name: String
        /// Its unit.
        public let unit: String
        /// The element it belongs to.
        public let element: CircuitElement
    }

    /// Why a circuit description code was refused, and at which character (1-based).
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The 1-based position in the code.
        public let position: Int
        /// What is wrong.
        public let message: String

        /// `position 4: …`.
        public var description: String { "position \(position): \(message)" }
    }

    /// The code as given.
    public let code: String
    /// Every parameter, in the order of the elements in the code.
    public let parameters: [Parameter]
    let root: Node

    /// Parses `code` (letters R, C, L, Q, W and parentheses, spaces ignored).
    public init(_ code: String) throws(ParseError) {
        self.code = code
        var parameters: [Parameter] = []
        var counts: [CircuitElement: Int] = [:]
        let characters = Array(code)
        var position = 0

        func parseGroup(parallel: Bool, depth: Int) throws(ParseError) -> Node {
            var children: [Node] = []
            while position < characters.count {
                let character = characters[position]
                if character == " " {
                    position += 1
                    continue
                }
                if character == ")" {
                    guard depth > 0 else { throw ParseError(position: position + 1, message: "a ) without its (") }
                    break
                }
                if character == "(" {
                    position += 1
                    let group = try parseGroup(parallel: !parallel, depth: depth + 1)
                    guard position < characters.count, characters[position] == ")" else {
                        throw ParseError(position: position + 1, message: "a ( is not closed")
                    }
                    position += 1
                    children.append(group)
                    continue
                }
                guard let element = CircuitElement(rawValue: Character(character.uppercased())) else {
                    throw ParseError(
                        position: position + 1,
                        message: "'\(character)' is not an element (R, C, L, Q, W) or a parenthesis"
                    )
                }
                let number = (counts[element] ?? 0) + 1
                counts[element] = number
                children.append(.element(element, parameters.count))
                let name = "\(element.rawValue)\(number)"
                parameters.append(Parameter(name: name, unit: element.units[0], element: element))
                if element == .constantPhase {
                    parameters.append(Parameter(name: "\(name).n", unit: "", element: element))
                }
                position += 1
            }
            guard !children.isEmpty else {
                throw ParseError(position: position + 1, message: depth == 0 ? "no element" : "an empty ()")
            }
            if children.count == 1 { return children[0] }
            return parallel ? .parallel(children) : .series(children)
        }

        root = try parseGroup(parallel: false, depth: 0)
        if position < characters.count {
            throw ParseError(position: position + 1, message: "a ) without its (")
        }
        self.parameters = parameters
    }

    /// The code.
    public var description: String { code }

    /// The circuit's impedance at `frequency` (Hz) with `values` (one per parameter, in order).
    public func impedance(at frequency: Double, _ values: [Double]) -> Complex<Double> {
        values.withUnsafeBufferPointer { buffer in
            Self.impedance(root, omega: 2 * Double.pi * frequency, buffer)
        }
    }

    private static func impedance(_ node: Node, omega: Double, _ values: UnsafeBufferPointer<Double>) -> Complex<Double>
    {
        switch node {
        case .element(let element, let first):
            let n = element == .constantPhase ? values[first + 1] : 0
            return element.impedance(values[first], n, omega: omega)
        case .series(let children):
            return children.reduce(Complex<Double>.zero) { $0 + impedance($1, omega: omega, values) }
        case .parallel(let children):
            let admittance = children.reduce(Complex<Double>.zero) {
                $0 + Complex<Double>(1, 0) / impedance($1, omega: omega, values)
            }
            return Complex<Double>(1, 0) / admittance
        }
    }
}
