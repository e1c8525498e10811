import Foundation
import SpecTables

/// Makes one sample value per structure, with the octets the spec layout gives for it, computed here
/// from the field model (independently of the generated Swift codecs), for the round-trip vectors.
struct BLESampler {
    /// Samples for the hand-written field types the tables name: Swift expression and its octets.
    static let handWritten: [String: (expression: String, bytes: [UInt8])] = [
        "ATTErrorCode": ("ATTErrorCode(rawValue: 0x0A)", [0x0A]),
        "HCIStatus": ("HCIStatus(rawValue: 0x0C)", [0x0C]),
        "SMPReason": ("SMPReason(rawValue: 0x04)", [0x04]),
        "ATTInformationData": (
            "ATTInformationData(pairs: [.init(handle: 0x0013, uuid: BluetoothUUID(0x2902)), "
                + ".init(handle: 0x0014, uuid: BluetoothUUID(0x2901))])",
            [0x01, 0x13, 0x00, 0x02, 0x29, 0x14, 0x00, 0x01, 0x29]
        ),
        "ATTAttributeDataList": (
            "ATTAttributeDataList(entries: [.init(handle: 0x0011, value: [0x1C, 0x12, 0x00]), "
                + ".init(handle: 0x0014, value: [0x04, 0x15, 0x00])])",
            [0x05, 0x11, 0x00, 0x1C, 0x12, 0x00, 0x14, 0x00, 0x04, 0x15, 0x00]
        ),
        "ATTGroupAttributeDataList": (
            "ATTGroupAttributeDataList(entries: [.init(handle: 0x0001, endGroupHandle: 0x0007, value: [0x00, 0x18]), "
                + ".init(handle: 0x0008, endGroupHandle: 0x000B, value: [0x01, 0x18])])",
            [0x06, 0x01, 0x00, 0x07, 0x00, 0x00, 0x18, 0x08, 0x00, 0x0B, 0x00, 0x01, 0x18]
        ),
        "ATTLengthValueList": (
            "ATTLengthValueList(tuples: [.init(value: [0xA1, 0xA2]), .init(value: [0xB1])])",
            [0x02, 0x00, 0xA1, 0xA2, 0x01, 0x00, 0xB1]
        ),
    ]

    let structures: [String: BLEShape]
    private var seed: UInt8 = 0x20

    init(structures: [String: BLEShape]) { self.structures = structures }

    private mutating func next(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            seed = seed == 0xEF ? 0x21 : seed + 1
            return seed
        }
    }

    private static func littleEndian(_ value: Int, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        "0x" + bytes.reversed().map { String(format: "%02X", $0) }.joined()
    }

    private static func array(_ bytes: [UInt8]) -> String {
        "[" + bytes.map { String(format: "0x%02X", $0) }.joined(separator: ", ") + "]"
    }

    mutating func sample(_ type: BLEFieldType) throws -> (expression: String, bytes: [UInt8]) {
        switch type {
        case .integer(let width, let signed):
            let bytes = next(width)
            return (signed ? "\(Int8(bitPattern: bytes[0]))" : Self.hex(bytes), bytes)
        case .address:
            let bytes = next(6)
            return ("BluetoothAddress(value: \(Self.hex(bytes)))", bytes)
        case .uuid:
            let bytes = next(2)
            return ("BluetoothUUID(\(Self.hex(bytes)))", bytes)
        case .rest:
            let bytes = next(3)
            return (Self.array(bytes), bytes)
        case .fixedBytes(let count):
            let bytes = next(count)
            return (Self.array(bytes), bytes)
        case .prefixedBytes(let width):
            let bytes = next(2)
            return (Self.array(bytes), Self.littleEndian(2, width: width) + bytes)
        case .list(let element, let countWidth, _):
            let first = try sample(element)
            let second = try sample(element)
            let prefix = countWidth.map { Self.littleEndian(2, width: $0) } ?? []
            return ("[\(first.expression), \(second.expression)]", prefix + first.bytes + second.bytes)
        case .structure(let name):
            if let known = Self.handWritten[name] { return known }
            guard let shape = structures[name] else {
                throw SpecError(
                    file: "Specs/ble",
                    line: 0,
                    message: "no structure or hand-written sample for '\(name)'"
                )
            }
            return try sample(shape)
        }
    }

    /// A value of the whole structure, header included.
    mutating func sample(_ shape: BLEShape) throws -> (expression: String, bytes: [UInt8]) {
        var arguments: [String] = []
        var body: [UInt8] = []
        var identifier: [UInt8] = []
        if case .signaling = shape.header {
            identifier = next(1)
            arguments.append("identifier: \(Self.hex(identifier))")
        }
        for field in shape.fields {
            let value = try sample(field.type)
            arguments.append("\(field.name): \(value.expression)")
            body += value.bytes
        }
        let bytes: [UInt8]
        switch shape.header {
        case .none, .returnParameters: bytes = body
        case .att(let opcode), .smp(let opcode): bytes = [opcode] + body
        case .hciCommand(let opcode):
            bytes = Self.littleEndian(Int(opcode), width: 2) + [UInt8(body.count)] + body
        case .hciEvent(let code): bytes = [code, UInt8(body.count)] + body
        case .leMeta(let sub): bytes = [0x3E, UInt8(body.count + 1), sub] + body
        case .signaling(let code): bytes = [code] + identifier + Self.littleEndian(body.count, width: 2) + body
        }
        return ("\(shape.type)(\(arguments.joined(separator: ", ")))", bytes)
    }

    static func literal(_ bytes: [UInt8]) -> String { array(bytes) }
}
