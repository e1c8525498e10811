#if canImport(Glibc)
import Glibc
#endif

/// Standard error as a `TextOutputStream` (unbuffered: one `write(2)` per string).
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Prints one `hcipico: …` line to standard error.
    static func report(_ message: String) {
        var stream = StandardError()
        print("hcipico: \(message)", to: &stream)
    }
}
