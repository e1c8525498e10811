import ArgumentParser
import BLEHost
import Coordination
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// Attribute values on the command line: hex as `gatt write` and `subscribe --write` take it, and
/// written to standard output as `gatt` prints them.
enum ValueText {
    /// Hex (`0102ff`, `0x01 02:FF`); a bad one is a usage error (exit 64) that says where.
    static func parseHex(_ text: String, what: String = "VALUE") throws(ValidationError) -> [UInt8] {
        do throws(AttributeValueText.HexSyntaxError) {
            return try AttributeValueText.parseHex(text, what: what)
        } catch {
            throw ValidationError(error.description)
        }
    }

    static func emit(_ text: String) {
        if let error = StandardStream.write(text, to: 1) { StandardStream.outputFailed(errno: error, stop: .shared) }
    }
}
