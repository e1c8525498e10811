import Foundation

/// A file holding a secret (the status page's token, the PostgreSQL password): readable by the service
/// alone. One that its group or others may read is refused, as ssh refuses a private key.
public enum SecretFile {
    /// Why `path` cannot hold a secret, or nil when it can.
    public static func problem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "\(path): \(String(cString: strerror(errno)))" }
        guard info.st_mode & S_IFMT == S_IFREG else { return "\(path): not a regular file" }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            return "\(path): its group or others may read it (mode \(String(mode, radix: 8))); chmod 600 it"
        }
        return nil
    }

    /// The secret: the file's first line, without surrounding whitespace. Throws the problem as text.
    public static func read(_ path: String) throws(SecretFileError) -> String {
        if let problem = problem(path) { throw SecretFileError(message: problem) }
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)
        else { throw SecretFileError(message: "\(path): cannot be read as text") }
        let secret = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let trimmed = secret.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw SecretFileError(message: "\(path): empty") }
        return trimmed
    }
}

public struct SecretFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
