import BLETesting
import Foundation
import Testing

@testable import hcipico

/// The exit-status table of `Documentation/ExitStatus.md` is the contract: every status `hcipico` can
/// exit with is in it, and each exit path the command line has gives the status the table names for its case.
@Suite struct ExitStatusTableTests {
    /// The statuses the table in `Documentation/ExitStatus.md` lists.
    static func documented() throws -> Set<Int32> {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Documentation/ExitStatus.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        var statuses: Set<Int32> = []
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| exit status |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let first = line.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? ""
            for number in first.split(separator: "/") {
                if let value = Int32(number.trimmingCharacters(in: .whitespaces)) { statuses.insert(value) }
            }
        }
        return statuses
    }

    @Test func theTableListsEveryExitStatusAndNoOther() throws {
        let documented = try Self.documented()
        #expect(documented == Set(hcipico.ExitStatus.allCases.map(\.rawValue)))
    }

    struct Path: Sendable, CustomStringConvertible {
        var arguments: [String]
        var status: hcipico.ExitStatus
        var description: String { arguments.joined(separator: " ") }
    }

    /// Exit paths reachable without a radio, one per outcome the table names.
    static let paths: [Path] = [
        Path(arguments: ["connect", "sim", "--fast", "--technique", "lsv", "--quiet"], status: .success),
        Path(arguments: ["decode", "/dev/null"], status: .success),
        Path(
            arguments: ["connect", "sim", "--fast", "--technique", "lsv", "--csv", "/dev/full"],
            status: .writeFailed
        ),
        Path(arguments: ["connect", "sim", "--fast", "--technique", "nope"], status: .badInput),
        Path(arguments: ["connect", "sim", "--fast", "--script", "/nonexistent.mscr"], status: .badInput),
        Path(arguments: ["connect", "sim", "--fast", "--svg", "/nonexistent/dir/x.svg"], status: .badInput),
        Path(arguments: ["gatt", "AA:BB:CC:DD:EE:GG", "services"], status: .badInput),
        Path(arguments: ["gatt", "sim:calculator", "read", "0x00ff"], status: .deviceError),
        Path(arguments: ["gatt", "sim:calculator", "services", "--sim-fault", "malformed-mtu"], status: .deviceError),
        Path(arguments: ["connect", "sim", "--fast", "--sim-fault", "malformed-mtu"], status: .deviceError),
        Path(arguments: ["serial", "sim:calculator", "--idle", "0"], status: .deviceError),
        Path(
            arguments: ["connect", "sim", "--fast", "--technique", "cv", "--quiet", "--sim-fault", "drops-link"],
            status: .connectionLost
        ),
        Path(arguments: ["connect", "sim", "--fast", "--quiet", "--sim-fault", "mute"], status: .timeout),
        Path(
            arguments: ["gatt", "AA:BB:CC:DD:EE:FF", "--transport", "serial:/dev/null", "services"],
            status: .noAdapter
        ),
        Path(
            arguments: ["gatt", "AA:BB:CC:DD:EE:FF", "--transport", "serial:/dev/nonexistent", "services"],
            status: .noAdapter
        ),
    ]

    @Test(arguments: paths)
    func eachExitPathGivesItsDocumentedStatus(_ path: Path) throws {
        let documented = try Self.documented()
        let binary = try builtHCIPico()
        let result = try #require(runProgram(binary, path.arguments))
        #expect(result.status == path.status.rawValue, "\(result.stderr)")
        #expect(documented.contains(result.status))
    }
}
