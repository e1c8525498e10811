import BLETesting
import Foundation

/// A GET through curl, a real HTTP client (`make test` installs it): the status, the header fields as
/// the server sent them (names in lower case) and the body as curl decoded it, with no client-side
/// challenge handling, redirects or caching.
enum CurlHTTP {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let curl = "/usr/bin/curl"

    static func get(port: Int, path: String, headers: [String: String] = [:]) throws -> Reply {
        guard FileManager.default.isExecutableFile(atPath: curl) else {
            throw Failure(description: "\(curl) is missing: these tests ask through curl (make unit installs it)")
        }
        var arguments = ["--silent", "--show-error", "--include", "--http1.1", "--max-time", "60"]
        for (name, value) in headers { arguments += ["--header", "\(name): \(value)"] }
        // Started as every test starts a program (`TestProgram`, posix_spawn): Foundation's `Process.run`
        // crashed copying its arguments when several tests started programs at once.
        let ended = try TestProgram.run(curl, arguments + ["http://127.0.0.1:\(port)\(path)"])
        guard ended.status == 0 else {
            throw Failure(description: "curl \(path) ended \(ended.status): \(ended.errorText)")
        }
        let data = ended.output
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no header end: \(text)") }
        let lines = text[..<split.lowerBound].split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: fields, body: String(text[split.upperBound...]))
    }
}
