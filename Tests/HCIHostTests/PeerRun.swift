import BLEHost
import BLELinux
import BLETesting
import BLEWire
import Foundation
import Testing

/// The peer script from the environment; the H4 peer tests run only when it is set
/// (`make peers-h4` sets it), so a plain `swift test` skips them and says why.
let peerScript = ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"]
let peerSkipReason: Comment =
    "set HCIPICO_PEER_SCRIPT to Tests/Peers/run-peer.sh (make peers-h4) to run against the Bumble peer"

/// One Bumble peer and our host on it over H4/TCP, with the host's HCI traffic captured to btsnoop.
/// Each case writes `host.btsnoop`, `peer.btsnoop` and `peer.log` to its own folder under
/// `.build/peers/runs/hcihost/` (replaced when the case runs again, kept afterwards), so a failing
/// case keeps its captures whichever way it failed; a thrown failure also names the folder.
struct PeerRun {
    let peer: BumblePeer
    let host: HCIHost
    let info: HCIControllerInfo
    let directory: URL
    let writer: BTSnoopWriter

    static func start(_ arguments: [String], name: String) async throws -> PeerRun {
        let script = try #require(peerScript)
        let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent(".build/peers/runs/hcihost/\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let peer = try await BumblePeer.start(
            script: script,
            arguments: arguments + ["--btsnoop", directory.appendingPathComponent("peer.btsnoop").path],
            logPath: directory.appendingPathComponent("peer.log").path
        )
        let writer = try BTSnoopWriter(path: directory.appendingPathComponent("host.btsnoop").path)
        let tcp = try H4StreamTransport.connectTCP(host: "127.0.0.1", port: peer.port)
        let host = HCIHost(transport: BTSnoopCaptureTransport(wrapping: tcp, into: writer))
        let info = try await host.start()
        return PeerRun(peer: peer, host: host, info: info, directory: directory, writer: writer)
    }

    /// Scans until every address in `peers` has advertised.
    func scan(for peers: [BluetoothAddress]) async throws -> [HCIAdvertisement] {
        let wanted = Set(peers.map(\.value))
        let stream = try await host.startScanning()
        var found: [UInt64: HCIAdvertisement] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        for await advertisement in stream where wanted.contains(advertisement.address.value) {
            found[advertisement.address.value] = advertisement
            if found.count == wanted.count || ContinuousClock.now > deadline { break }
        }
        try await host.stopScanning()
        return peers.compactMap { found[$0.value] }
    }

    /// Runs `body`; on success removes the captures, on failure keeps them and says where.
    static func run(_ arguments: [String], name: String, _ body: (PeerRun) async throws -> Void) async throws {
        let run = try await start(arguments, name: name)
        do {
            try await body(run)
            await run.host.shutdown()
            run.writer.close()
            run.peer.stop()
        } catch {
            await run.host.shutdown()
            run.writer.close()
            run.peer.stop()
            Issue.record("captures kept in \(run.directory.path) (host.btsnoop, peer.btsnoop, peer.log)")
            throw error
        }
    }
}

/// A line-level check of a Pico reply.
struct PicoReply {
    let lines: [Substring]
    init(_ text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }
    var packages: [Substring] { lines.filter { $0.hasPrefix("P") } }
}

/// The LSV script of the anchor: −0.5 V to 0.5 V in 100 mV steps, 11 packages.
let lsvScript =
    "e\nvar c\nvar p\nmeas_loop_lsv p c -500m 500m 100m 1\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n\n"

/// Version, then the script: the whole Pico scenario over one link.
func picoScenario(_ link: VSPLink) async throws {
    try await link.send("t\n")
    let version = try #require(await link.read(until: "*\n"), "no version reply; unread: \(link.unread)")
    #expect(version.contains("tespico"))
    try await link.send(lsvScript)
    let reply = PicoReply(try #require(await link.read(until: "*\n\n"), "no script end; unread: \(link.unread)"))
    #expect(reply.lines.first == "e" && reply.lines.dropFirst().first == "M0000")
    #expect(reply.packages.count == 11)
    #expect(reply.lines.suffix(3) == ["*", "", ""])
}
