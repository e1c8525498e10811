import Foundation
import PostgresNIO
import RigModel

/// A forwarding failure as one sentence for the log, the status page and `/metrics`' last error:
/// what went wrong and, where it is the config's doing, what to change. Never a dump of nested error
/// values (`SingleConnectionFailure(…)`).
enum ForwardFailureText {
    static func describe(_ error: any Error, target: String, sslMode: PostgresForwardConfig.SSLMode) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        // PostgreSQL's own words (SQLSTATE and message) where it sent some; postgres-nio keeps them out
        // of `description` so that no query text reaches a log by accident.
        if let info = error.serverInfo, let message = info[.message] {
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = info[.detail].map { ": \($0)" } ?? ""
            return "PostgreSQL: \(message)\(detail)\(state)"
        }
        let place = "PostgreSQL at \(target)"
        switch error.code {
        case .sslUnsupported:
            return "\(place) does not offer TLS, which sslmode = \"\(sslMode.rawValue)\" requires: "
                + "enable TLS on the server, or set sslmode = \"disable\" (a local socket) or \"prefer\""
        case .serverClosedConnection, .clientClosedConnection:
            return "\(place) closed the connection"
        case .queryCancelled:
            return "a query to \(place) was cancelled"
        default:
            break
        }
        if let underlying = error.underlying {
            return "cannot reach \(place): \(reason(underlying))"
        }
        return "\(place): \(error.code)"
    }

    /// The system's words for the first `errno` an error tells of (`Connection refused`), else its
    /// own description without nested type names.
    static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        if let range = text.range(of: #"errno: (\d+)"#, options: .regularExpression),
            let code = Int32(text[range].dropFirst("errno: ".count))
        {
            return String(cString: strerror(code)).lowercased()
        }
        if let ioError = error as? IOError { return String(cString: strerror(ioError.errnoCode)).lowercased() }
        return text
    }
}
