import Coordination
import RigClient

/// An MCP server over standard input and output (`hcipico mcp`) that lets an agent use a rig through
/// its API, with the token it is given: so an agent's actions obey the rig's roles, checks, queue and
/// journal like any client's. Tools list the devices and methods, run a method or a script on a device
/// (queued, then followed to its end, with its results), get a request or a run's results, cancel and
/// abort; each run's results are a resource (`hcipico://runs/RUN/results`).
public struct RigMCPServer: Sendable {
    let client: RigAPIClient
    let version: String

    public init(client: RigAPIClient, version: String) {
        self.client = client
        self.version = version
    }

    /// Serves on a thread of its own until standard input ends (true) or standard output is closed
    /// (false).
    public func run() async -> Bool {
        let client = client
        let version = version
        return await Threads.blocking(name: "mcp") {
            MCPStdioServer(name: "hcipico", version: version, handler: RigMCPTools(client: client)).serve()
        } ?? false
    }
}
