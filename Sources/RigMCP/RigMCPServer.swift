import Coordination
import Foundation
import Logging
import MCP
import RigClient

/// An MCP server over standard input and output (`hcipico mcp`) that lets an agent use a rig through
/// its API, with the token it is given: so an agent's actions obey the rig's roles, checks, queue and
/// journal like any client's. Tools list the devices and methods, run a method or a script on a device
/// (queued, then followed to its end, with its results), get a request or a run's results, cancel and
/// abort; each run's results are a resource (`hcipico://runs/RUN/results`).
public struct RigMCPServer: Sendable {
    let client: RigAPIClient
    let version: String
    let logger: Logger

    public init(client: RigAPIClient, version: String, logger: Logger) {
        self.client = client
        self.version = version
        self.logger = logger
    }

    /// Serves until standard input ends.
    public func run() async throws {
        let server = Server(
            name: "hcipico",
            version: version,
            capabilities: .init(
                resources: .init(subscribe: false, listChanged: false),
                tools: .init(listChanged: false)
            )
        )
        let tools = RigMCPTools(client: client)
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: RigMCPTools.all) }
        await server.withMethodHandler(CallTool.self) { params in await tools.call(params.name, params.arguments ?? [:])
        }
        await server.withMethodHandler(ListResources.self) { _ in
            .init(resources: try await tools.resources(), nextCursor: nil)
        }
        await server.withMethodHandler(ReadResource.self) { params in
            .init(contents: [try await tools.read(params.uri)])
        }
        try await server.start(transport: StdioTransport(logger: logger))
        await server.waitUntilCompleted()
    }
}
