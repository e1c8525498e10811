import BLEWire
import Testing

/// Random and mutated input into every decoder: each either decodes or throws a located `DecodeError`,
/// and whatever decodes re-encodes to something that decodes to the same value.
@Suite struct RandomInputTests {
    /// xorshift64*, fixed seed: the same inputs every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 32) }
    }

    /// Inputs: every generated vector with bytes flipped, cut or extended, plus pure noise.
    static func inputs(count: Int) -> [[UInt8]] {
        var random = Generator(state: 0x9E37_79B9_7F4A_7C15)
        let vectors = WireVector.generated.map(\.bytes)
        return (0..<count).map { index in
            var bytes = vectors[index % vectors.count]
            switch random.next() % 4 {
            case 0: if !bytes.isEmpty { bytes[Int(random.next() % UInt64(bytes.count))] = random.byte() }
            case 1: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            case 2: bytes += (0..<Int(random.next() % 8)).map { _ in random.byte() }
            default: bytes = (0..<Int(random.next() % 48)).map { _ in random.byte() }
            }
            return bytes
        }
    }

    static func check<Value: WireCodable>(_: Value.Type, _ bytes: [UInt8]) -> Bool {
        do {
            let value = try Value(bytes: bytes)
            return try Value(bytes: value.encodedBytes) == value
        } catch {
            return error.offset >= 0 && error.offset <= bytes.count
        }
    }

    @Test func decodersNeverTrapAndRoundTripWhatTheyAccept() {
        var failures: [String] = []
        for bytes in Self.inputs(count: 20_000) {
            if !Self.check(ATTPDU.self, bytes) { failures.append("ATT \(bytes)") }
            if !Self.check(HCIEvent.self, bytes) { failures.append("event \(bytes)") }
            if !Self.check(HCICommand.self, bytes) { failures.append("command \(bytes)") }
            if !Self.check(L2CAPSignalingCommand.self, bytes) { failures.append("signaling \(bytes)") }
            if !Self.check(HCIACLHeader.self, bytes) { failures.append("ACL \(bytes)") }
            do {
                _ = try AdvertisingData(bytes: bytes)
            } catch {
                if error.offset < 0 || error.offset > bytes.count { failures.append("AD \(bytes)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}
