import ArgumentParser
import RigClient
import RigCore
import RigMCP
import Terminal

/// `hcipico mcp`: an MCP server on standard input and output for agents that spawn their tools, using a
/// running rig through its API (`RigMCPServer`).
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve a rig to an AI agent over MCP (standard input and output), through the rig's API.",
        discussion: """
            Tools: list_devices, list_methods, run_method and run_script (queued on a device, then waited \
            for, with their results), get_request, get_results, cancel, abort; each run's results are a \
            resource. Everything goes through the rig's API with the token given, so the rig's roles, \
            checks, queue and journal apply to the agent as to any client: with the read token the agent \
            can look but not run. Ends when standard input ends (exit 0); exit 141 when standard output \
            is closed, 64 for a bad --url or token file.
            """
    )

    @Option(help: "The rig's status server.")
    var url = "http://127.0.0.1:9464"

    @Option(
        help: "A file with the token to send (mode 600): the control token to run and abort, the read token to look."
    )
    var tokenFile: String?

    func run() async throws {
        let client: RigAPIClient
        do {
            let token = try tokenFile.map { path throws(SecretFileError) in try SecretFile.read(path) }
            client = try RigAPIClient(url: url, token: token)
        } catch {
            StandardError.report("mcp: \(error)")
            throw ExitStatus.badInput.exitCode
        }
        guard await RigMCPServer(client: client, version: HCIPico.configuration.version).run() else {
            throw ExitStatus.outputClosed.exitCode
        }
    }
}
