import BLEWire
import Testing

@Suite struct GeneratedVectorTests {
    @Test func everyGeneratedStructureHasAVector() {
        #expect(WireVector.generated.count > 60)
        #expect(Set(WireVector.generated.map(\.name)).count == WireVector.generated.count)
    }

    @Test(arguments: WireVector.generated.map(\.name))
    func encodesToTheSpecLayoutAndDecodesBack(_ name: String) throws {
        let vector = try #require(WireVector.generated.first { $0.name == name })
        #expect(vector.encode() == vector.bytes)
        let decoded = try vector.bytes.withUnsafeBytes { buffer throws(DecodeError) in
            try vector.decodesToValue(buffer)
        }
        #expect(decoded)
    }

    /// Every prefix of a valid encoding either decodes (to something else) or fails with a located error;
    /// a prefix shorter than the minimum length always fails as truncated at the first byte.
    @Test(arguments: WireVector.generated.map(\.name))
    func truncatedInputGivesALocatedError(_ name: String) throws {
        let vector = try #require(WireVector.generated.first { $0.name == name })
        for count in 0..<vector.bytes.count {
            let prefix = Array(vector.bytes.prefix(count))
            let result: Result<Bool, DecodeError> = prefix.withUnsafeBytes { buffer in
                do throws(DecodeError) { return .success(try vector.decodesToValue(buffer)) } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(let equal):
                #expect(!equal, "\(name): a \(count)-byte prefix decoded to the whole value")
            case .failure(let error):
                #expect(error.offset >= 0 && error.offset <= count, "\(name): \(error)")
                if count < vector.minimumLength {
                    #expect(
                        error
                            == DecodeError(
                                offset: 0,
                                reason: .truncated(needed: vector.minimumLength, available: count)
                            )
                    )
                }
            }
        }
    }
}
