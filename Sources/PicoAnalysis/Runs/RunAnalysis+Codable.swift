public import Foundation

extension RunAnalysis: Codable {
    private enum Keys: String, CodingKey {
        case run, peaks, fit
    }

    /// A failed fit as JSON: the circuit, the error in words and as a value.
    private struct FailedFit: Codable {
        var circuit: EquivalentCircuit
        var error: String
        var failure: CircuitFitError
    }

    /// The encoder for every output: keys in snake case, sorted; a number that is not finite (which no
    /// result should hold) as a string rather than a failure.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        return encoder
    }

    /// The decoder for what `encoder` wrote.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        return decoder
    }

    /// The JSON object, as `encoder` writes it (peaks alone written directly, byte for byte the same).
    public var json: String {
        if let peaksJSON { return peaksJSON }
        return encodedJSON
    }

    /// The JSON object, from `encoder`.
    var encodedJSON: String {
        do { return String(decoding: try Self.encoder.encode(self), as: UTF8.self) } catch {
            return "{\"run\":\(run),\"error\":\"could not be encoded\"}"
        }
    }

    /// Writes the results as the JSON object the type describes (`{"run":…,"peaks":…}` or `"fit"`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(run, forKey: .run)
        var peaks: [String: [VoltammetricPeak]] = [:]
        for result in results {
            switch result {
            case .peaks(let current, let found): peaks[current] = found
            case .fit(let fit): try container.encode(fit, forKey: .fit)
            case .fitFailed(let circuit, let error):
                try container.encode(
                    FailedFit(circuit: circuit, error: error.description, failure: error),
                    forKey: .fit
                )
            }
        }
        if !peaks.isEmpty { try container.encode(peaks, forKey: .peaks) }
    }

    /// Reads what `encode(to:)` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        run = try container.decode(Int.self, forKey: .run)
        var results: [Result] = []
        if let peaks = try container.decodeIfPresent([String: [VoltammetricPeak]].self, forKey: .peaks) {
            results += peaks.keys.sorted().map { .peaks(current: $0, peaks[$0] ?? []) }
        }
        if container.contains(.fit) {
            if let failed = try? container.decode(FailedFit.self, forKey: .fit) {
                results.append(.fitFailed(failed.circuit, failed.failure))
            } else {
                results.append(.fit(try container.decode(CircuitFit.self, forKey: .fit)))
            }
        }
        self.results = results
    }
}

extension EquivalentCircuit: Codable {
    /// The circuit as its code.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    /// A circuit from its code.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let code = try container.decode(String.self)
        do { try self.init(code) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "circuit \(code): \(error)")
        }
    }
}
