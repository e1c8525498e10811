import BLEHost
import BLETesting
import BLEWire
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// H4 over TCP and over a serial device (a pseudo-terminal) against Bumble's emulated controller:
/// `Tools/h4-peer-check.sh` starts the peers and sets `HCIPICO_H4_PEER=HOST:PORT` and
/// `HCIPICO_H4_SERIAL=DEVICE`. Each test is skipped without its variable.
@Suite(.serialized)
struct H4PeerTests {
    /// Collects events; answers `waitFor(opcode)` with the Command Complete's return parameters.
    final class Events: Sendable {
        private let completes = Mutex<[UInt16: [UInt8]]>([:])
        private let closes = Mutex<[TransportError]>([])

        func received(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) {
            guard type == .event, packet.count >= 5, packet[0] == 0x0E else { return }
            let opcode = UInt16(packet[3]) | UInt16(packet[4]) << 8
            completes.withLock { $0[opcode] = Array(packet[5...]) }
        }

        func closed(_ reason: TransportError) { closes.withLock { $0.append(reason) } }
        func complete(_ opcode: UInt16) -> [UInt8]? { completes.withLock { $0[opcode] } }
        var closeReasons: [TransportError] { closes.withLock { $0 } }
    }

    @Test(.enabled(if: getenv("HCIPICO_H4_PEER") != nil, "needs HCIPICO_H4_PEER"))
    func resetAndReadBDADDROverTCP() throws {
        let text = String(cString: getenv("HCIPICO_H4_PEER")!)
        guard case .tcp(let host, let port) = try TransportSpec(parsing: "tcp:" + text) else {
            Issue.record("HCIPICO_H4_PEER is not HOST:PORT")
            return
        }
        try Self.resetAndReadBDADDR(over: try H4StreamTransport.connectTCP(host: host, port: port))
    }

    @Test(.enabled(if: getenv("HCIPICO_H4_SERIAL") != nil, "needs HCIPICO_H4_SERIAL"))
    func resetAndReadBDADDROverSerial() throws {
        let device = String(cString: getenv("HCIPICO_H4_SERIAL")!)
        try Self.resetAndReadBDADDR(
            over: try H4StreamTransport.openSerial(device: device, baudRate: 1_000_000, flowControl: false)
        )
    }

    static func resetAndReadBDADDR(over transport: H4StreamTransport) throws {
        let events = Events()
        try transport.start(receive: events.received, closed: events.closed)
        try [UInt8]([0x03, 0x0C, 0x00]).withTypedBytes { bytes throws(TransportError) in
            try transport.send(.command, bytes)
        }
        #expect(eventuallyBlocking { events.complete(0x0C03) != nil }, "Reset answered")
        #expect(events.complete(0x0C03) == [0x00])
        try [UInt8]([0x09, 0x10, 0x00]).withTypedBytes { bytes throws(TransportError) in
            try transport.send(.command, bytes)
        }
        #expect(eventuallyBlocking { events.complete(0x1009) != nil }, "Read BD_ADDR answered")
        let address = try #require(events.complete(0x1009))
        #expect(address.count == 7)
        #expect(address.first == 0x00)
        // The peer's central-side controller has the public address 00:00:5E:00:53:01 (Tests/Peers).
        #expect(BluetoothAddress(wireBytes: address.dropFirst()).description == "00:00:5E:00:53:01")
        transport.close()
        #expect(events.closeReasons == [.closed])
    }
}
