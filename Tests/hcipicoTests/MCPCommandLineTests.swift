import Foundation
import Testing

/// `hcipico mcp` refuses what it cannot use before it serves, and ends when its input ends. (An agent's
/// session against a rig is `make peers-api`'s, with the Python MCP SDK's client.)
@Suite struct MCPCommandLineTests {
    @Test func aBadURLOrTokenFileIsRefusedWithStatus64() throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try CommandLineTests.run(["mcp", "--url", "https://rig.lab:9464"], in: directory)
        #expect(url.status == 64 && url.error.contains("only http://HOST:PORT"), "\(url.error)")
        let port = try CommandLineTests.run(["mcp", "--url", "http://127.0.0.1"], in: directory)
        #expect(port.status == 64 && port.error.contains("give the port"), "\(port.error)")
        let token = directory.appendingPathComponent("token")
        try "t0ken\n".write(to: token, atomically: false, encoding: .utf8)
        chmod(token.path, 0o644)
        let open = try CommandLineTests.run(["mcp", "--token-file", token.path], in: directory)
        #expect(open.status == 64 && open.error.contains("chmod 600"), "\(open.error)")
    }

    @Test func itEndsWhenItsInputEnds() throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // No rig is asked anything until a tool is called: with stdin at its end the server just ends.
        let ended = try CommandLineTests.run(["mcp", "--url", "http://127.0.0.1:9"], in: directory)
        #expect(ended.status == 0, "\(ended.error)")
        #expect(ended.output.isEmpty)
    }
}
