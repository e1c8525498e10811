import BLEHost
import BLETesting
import BLEWire
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// H4 over real local TCP connections and a real pseudo-terminal.
@Suite struct H4StreamTransportTests {
    final class Packets: Sendable {
        private let state = Mutex<(packets: [[UInt8]], closes: [TransportError])>(([], []))
        func received(_ type: HCIPacketIndicator, _ bytes: UnsafeRawBufferPointer) {
            state.withLock { $0.packets.append([type.rawValue] + Array(bytes)) }
        }
        func closed(_ reason: TransportError) { state.withLock { $0.closes.append(reason) } }
        var packets: [[UInt8]] { state.withLock { $0.packets } }
        var closes: [TransportError] { state.withLock { $0.closes } }
    }

    /// A listening loopback socket and its port.
    static func listener() -> (CInt, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                precondition(bind(fd, raw, length) == 0 && listen(fd, 1) == 0)
                precondition(getsockname(fd, raw, &length) == 0)
            }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    static func accepted(_ listener: CInt) -> CInt {
        let fd = accept(listener, nil, nil)
        precondition(fd >= 0)
        return fd
    }

    /// Command Complete for Reset, an ACL packet and LE Meta, as one H4 stream.
    static let stream: [UInt8] =
        [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00] + [0x02, 0x40, 0x00, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A]
        + [0x04, 0x3E, 0x03, 0x03, 0x00, 0x40]

    @Test func tcpCarriesPacketsBothWaysWhateverTheChunking() throws {
        let (listening, port) = Self.listener()
        defer { close(listening) }
        let transport = try H4StreamTransport.connectTCP(host: "127.0.0.1", port: port)
        let controller = Self.accepted(listening)
        defer { close(controller) }
        #expect(transport.endpoint == "tcp:127.0.0.1:\(port)")
        let packets = Packets()
        try transport.start(receive: packets.received, closed: packets.closed)
        // The controller writes the stream in chunks cut inside headers and payloads.
        for cut in [(0, 2), (2, 9), (9, 10), (10, Self.stream.count)] {
            put(controller, Array(Self.stream[cut.0..<cut.1]))
            usleep(2000)
        }
        #expect(eventuallyBlocking { packets.packets.count == 3 })
        #expect(packets.packets == [Array(Self.stream[0..<7]), Array(Self.stream[7..<17]), Array(Self.stream[17...])])
        // Reset goes out as indicator 0x01 and the packet, in one piece.
        try [UInt8]([0x03, 0x0C, 0x00]).withTypedBytes { bytes throws(TransportError) in
            try transport.send(.command, bytes)
        }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
        #expect(Array(buffer[..<max(count, 0)]) == [0x01, 0x03, 0x0C, 0x00])
        transport.close()
        #expect(packets.closes == [.closed])
    }

    @Test func tcpPeerClosingEndsTheTransportAfterWhatArrived() throws {
        let (listening, port) = Self.listener()
        defer { close(listening) }
        let transport = try H4StreamTransport.connectTCP(host: "localhost", port: port)
        let controller = Self.accepted(listening)
        let packets = Packets()
        try transport.start(receive: packets.received, closed: packets.closed)
        put(controller, Array(Self.stream[0..<7]))
        close(controller)
        #expect(eventuallyBlocking { !packets.closes.isEmpty })
        #expect(packets.packets == [Array(Self.stream[0..<7])])
        #expect(packets.closes == [.disconnected(reason: nil)])
    }

    @Test func tcpFramingErrorEndsTheTransportWithItsLocation() throws {
        let (listening, port) = Self.listener()
        defer { close(listening) }
        let transport = try H4StreamTransport.connectTCP(host: "127.0.0.1", port: port)
        let controller = Self.accepted(listening)
        defer { close(controller) }
        let packets = Packets()
        try transport.start(receive: packets.received, closed: packets.closed)
        put(controller, Array(Self.stream[0..<7]) + [0x09, 0x00])
        #expect(eventuallyBlocking { !packets.closes.isEmpty })
        #expect(packets.packets.count == 1)
        #expect(packets.closes == [.framing("H4 stream byte 7: 0x09 is not a packet indicator")])
    }

    @Test func tcpNothingListeningIsRefused() throws {
        let (listening, port) = Self.listener()
        close(listening)  // the port is now free: nothing listens
        let error = failure { () throws(BLELinuxError) in
            try H4StreamTransport.connectTCP(host: "127.0.0.1", port: port)
        }
        #expect(error?.kind == .refused)
        #expect(error?.message.contains("nothing listens on tcp:127.0.0.1:\(port)") == true)
    }

    @Test func tcpUnknownHostIsReported() {
        let error = failure { () throws(BLELinuxError) in
            try H4StreamTransport.connectTCP(host: "no-such-host.invalid", port: 9)
        }
        #expect(error?.kind == .unresolvedHost)
    }

    @Test func serialPortIsSetRawAtTheBaudRateWithFlowControl() throws {
        // A pseudo-terminal pair: unlock the subsidiary side (TIOCSPTLCK) and ask its number (TIOCGPTN).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0, "no /dev/ptmx: errno \(errno)")
        defer { close(master) }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0)
        try #require(ioctl(master, 0x8004_5430, &number) == 0)
        let device = "/dev/pts/\(number)"
        let transport = try H4StreamTransport.openSerial(device: device, baudRate: 1_000_000, flowControl: true)
        #expect(transport.endpoint == "serial:\(device)@1000000,rtscts")
        // The settings belong to the terminal: a second descriptor on it sees them.
        let check = open(device, O_RDWR | O_NOCTTY)
        defer { close(check) }
        var attributes = termios()
        try #require(tcgetattr(check, &attributes) == 0)
        #expect(cfgetospeed(&attributes) == speed_t(B1000000))
        #expect(attributes.c_cflag & tcflag_t(CRTSCTS) != 0)
        #expect(attributes.c_lflag & tcflag_t(ICANON | ECHO) == 0, "raw: no line editing, no echo")
        // Bytes written by the "controller" (the master side) arrive as packets.
        let packets = Packets()
        try transport.start(receive: packets.received, closed: packets.closed)
        put(master, Array(Self.stream[0..<7]))
        #expect(eventuallyBlocking { packets.packets.count == 1 })
        #expect(packets.packets.first == Array(Self.stream[0..<7]))
        transport.close()
    }

    @Test func missingSerialDeviceIsNoAdapter() {
        let error = failure { () throws(BLELinuxError) in
            try H4StreamTransport.openSerial(device: "/dev/hcipico-no-such-tty", baudRate: 115_200, flowControl: false)
        }
        #expect(error?.kind == .noAdapter)
        #expect(error?.message.hasPrefix("no serial device /dev/hcipico-no-such-tty") == true)
    }

    @Test func specOpensTheTransportItNames() throws {
        let (listening, port) = Self.listener()
        defer { close(listening) }
        let transport = try TransportSpec(parsing: "tcp:127.0.0.1:\(port)").openHCITransport()
        #expect((transport as? H4StreamTransport)?.endpoint == "tcp:127.0.0.1:\(port)")
        transport.close()
        let error = failure { () throws(BLELinuxError) in try TransportSpec.kernel(adapter: nil).openHCITransport() }
        #expect(error?.kind == .system)
    }
}

extension H4StreamTransportTests {
    /// Writing after the peer has gone must fail as a value, not kill the process with SIGPIPE.
    @Test func sendingToAClosedPeerFailsWithoutSignal() throws {
        let (listening, port) = Self.listener()
        defer { close(listening) }
        let transport = try H4StreamTransport.connectTCP(host: "127.0.0.1", port: port)
        close(Self.accepted(listening))
        usleep(20_000)
        var outcome: TransportError?
        for _ in 0..<50 where outcome == nil {
            do throws(TransportError) {
                try [UInt8]([0x03, 0x0C, 0x00]).withTypedBytes { bytes throws(TransportError) in
                    try transport.send(.command, bytes)
                }
                usleep(2000)
            } catch {
                outcome = error
            }
        }
        #expect(outcome == .disconnected(reason: nil) || outcome == .closed, "\(String(describing: outcome))")
        transport.close()
    }
}
