import BLEHost
import BLETesting
import BLEWire
import Testing

@Suite("HCIHost against the Bumble peer over H4/TCP", .serialized, .enabled(if: peerScript != nil, peerSkipReason))
struct HCIHostPeerTests {
    @Test(
        "init, scan, connect, MTU, discovery, subscribe, version and a script",
        arguments: [
            ["--le-acl-len", "27"], ["--le-acl-len", "251"], ["--le-acl-len", "27", "--no-fragment"],
            ["--le-acl-len", "251", "--legacy-only"],
        ]
    )
    func picoScenarioRuns(arguments: [String]) async throws {
        try await PeerRun.run(["--mode", "pico"] + arguments, name: "pico" + arguments.joined()) { run in
            #expect(run.info.aclDataLength == Int(arguments[1]))
            // Bumble's emulated controller handles the extended scan commands but leaves them out of
            // its supported-commands bitmap, so the host (which decides from the bitmap) scans legacy.
            #expect(!run.info.extendedScanning && !run.info.extendedConnect)
            #expect(run.info.bufferSource == .leReadBufferSizeV2)
            let peripheral = try #require(run.peer.peripherals.first)
            let found = try #require(try await run.scan(for: [peripheral]).first)
            #expect(found.name == "PicoSim")
            #expect(found.data?.advertises(VSPLink.service) == true)
            let link = try await VSPLink.open(host: run.host, peer: found.address)
            #expect(link.client.mtu == 247)
            try await picoScenario(link)
            #expect(run.host.statistics.droppedACL == 0)
        }
    }

    @Test("two peripherals at once")
    func twoPeripherals() async throws {
        try await PeerRun.run(["--mode", "pico", "--peripherals", "2", "--le-acl-len", "27"], name: "two") { run in
            #expect(run.peer.peripherals.count == 2)
            let found = try await run.scan(for: run.peer.peripherals)
            try #require(found.count == 2)
            let first = try await VSPLink.open(host: run.host, peer: found[0].address)
            let second = try await VSPLink.open(host: run.host, peer: found[1].address)
            #expect(first.connection.handle != second.connection.handle)
            #expect(run.host.connections.count == 2)
            async let one: Void = picoScenario(first)
            async let two: Void = picoScenario(second)
            _ = try await (one, two)
        }
    }

    @Test("a peer that disconnects mid-run: the error surfaces, the data so far is kept")
    func disconnectMidRun() async throws {
        try await PeerRun.run(["--mode", "pico", "--disconnect-after", "3", "--chunk", "20"], name: "drop") { run in
            let peripheral = try #require(run.peer.peripherals.first)
            let found = try #require(try await run.scan(for: [peripheral]).first)
            let link = try await VSPLink.open(host: run.host, peer: found.address)
            try await link.send(lsvScript)
            var reason: UInt8?
            for await event in link.connection.events {
                if case .disconnected(let code) = event { reason = code }
            }
            #expect(reason != nil && reason != 0x16)
            #expect(link.notificationCount == 3)
            #expect(link.unread.hasPrefix("e\nM0000\n"))
            await #expect(throws: GATTError.self) { try await link.send("t\n") }
            #expect(await run.peer.waitForEvent(containing: "disconnect-after") != nil)
        }
    }

    @Test("a peer that sends a Connection Parameter Update Request gets its answer")
    func connectionParameterUpdate() async throws {
        try await PeerRun.run(["--mode", "pico", "--conn-update"], name: "connupdate") { run in
            let peripheral = try #require(run.peer.peripherals.first)
            let found = try #require(try await run.scan(for: [peripheral]).first)
            let link = try await VSPLink.open(host: run.host, peer: found.address)
            var accepted = false
            for await event in link.connection.events {
                if case .parameterRequest(_, let yes, true) = event {
                    accepted = yes
                    break
                }
            }
            #expect(accepted)
            let answer = try #require(await run.peer.waitForEvent(containing: "conn-param-update"))
            #expect(answer.contains("accepted"))
            try await picoScenario(link)
        }
    }
}
