import Crypto
import Foundation
public import PicoLink

extension RunProvenance {
    /// Lowercase hex SHA-256 of a script's text (its lines without `e`, joined by newlines), as the
    /// provenance of every output and the journal give it.
    public static func scriptSHA256(of text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { byte in
            (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
