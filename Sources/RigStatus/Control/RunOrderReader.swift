import Foundation
import RigModel

/// Reads a run order from a request body: a JSON object with `technique` and `parameters` (an object of
/// numbers in SI units) or `script` (MethodSCRIPT text), and optionally `priority`, `title` and
/// `idempotency_key`. Anything else — another field, a value of the wrong type, both or neither of
/// `technique` and `script` — is refused with the field it is about.
enum RunOrderReader {
    static let fields = ["technique", "parameters", "script", "priority", "title", "idempotency_key"]

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// The body's fields, typed; a field of the wrong type is a `DecodingError` naming it.
    private struct Fields: Decodable {
        var unknown: [String]
        var technique: String?
        var parameters: [String: Double]?
        var script: String?
        /// Read as a number and checked to be whole: a JSON decoder reports `1.5` for an `Int` as a
        /// corrupt body, naming no field.
        var priority: Double?
        var title: String?
        var idempotencyKey: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            unknown = container.allKeys.map(\.stringValue).filter { !RunOrderReader.fields.contains($0) }.sorted()
            technique = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "technique"))
            parameters = try container.decodeIfPresent([String: Double].self, forKey: Key(stringValue: "parameters"))
            script = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "script"))
            priority = try container.decodeIfPresent(Double.self, forKey: Key(stringValue: "priority"))
            title = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "title"))
            idempotencyKey = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "idempotency_key"))
        }
    }

    private static let expected = [
        "technique": "a string (cv, dpv, …)",
        "parameters": "an object of numbers by name (SI units: V, s, V/s, Hz, A)",
        "script": "a string (the MethodSCRIPT, lines ending in \\n)",
        "priority": "a whole number",
        "title": "a string",
        "idempotency_key": "a string",
    ]

    static func read(_ body: Data, idempotencyHeader: String?) throws(RigControlError) -> RunOrder {
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: body)
        } catch let DecodingError.typeMismatch(_, context) {
            throw invalid(context)
        } catch let DecodingError.valueNotFound(_, context) {
            throw invalid(context)
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw invalid(context)
        } catch {
            throw .invalid(parameter: "body", message: "must be a JSON object")
        }
        if let unknown = fields.unknown.first {
            throw .invalid(
                parameter: unknown,
                message: "unknown field; known: \(Self.fields.sorted().joined(separator: ", "))"
            )
        }
        let body: RunOrder.Body
        switch (fields.technique, fields.script) {
        case (let technique?, nil):
            body = .method(technique: technique, parameters: fields.parameters ?? [:])
        case (nil, let script?):
            if fields.parameters != nil {
                throw .invalid(parameter: "parameters", message: "goes with technique, not with script")
            }
            body = .script(script)
        case (_?, _?):
            throw .invalid(parameter: "script", message: "give technique or script, not both")
        case (nil, nil):
            throw .invalid(parameter: "technique", message: "missing: give technique (with parameters) or script")
        }
        var priority = 0
        if let number = fields.priority {
            guard let whole = Int(exactly: number) else {
                throw .invalid(parameter: "priority", message: "must be \(expected["priority"] ?? "a whole number")")
            }
            priority = whole
        }
        var order = RunOrder(body: body, priority: priority, title: fields.title)
        switch (fields.idempotencyKey, idempotencyHeader) {
        case (let inBody?, let header?) where inBody != header:
            throw .invalid(parameter: "idempotency_key", message: "differs from the Idempotency-Key header")
        case (let inBody?, _): order.idempotencyKey = inBody
        case (nil, let header): order.idempotencyKey = header
        }
        return order
    }

    /// The field a decoding error is about (a parameter's own name inside `parameters`).
    private static func invalid(_ context: DecodingError.Context) -> RigControlError {
        let path = context.codingPath.map(\.stringValue)
        if path.first == "parameters", path.count > 1 {
            return .invalid(parameter: path[1], message: "must be a number (SI units: V, s, V/s, Hz, A)")
        }
        let field = path.first ?? "body"
        return .invalid(parameter: field, message: "must be \(expected[field] ?? "of another type")")
    }
}
