public import BLEHost
internal import CBlueZ
internal import Glibc

/// One end of an in-process ATT link: a Unix `SOCK_SEQPACKET` socketpair, so that, as with the kernel's
/// L2CAP LE socket, every `send` is one message and every read one whole PDU. Each end is read by the
/// same `DescriptorChannel` reader thread as `L2CAPATTSocket`, so in-memory tests, Bench and the simulator
/// run the production receive path. This is how the command line and rigs without a radio reach a
/// simulated peripheral; `BLETesting` wraps it with fault injection.
public final class UnixSocketATTTransport: ATTTransport {
    /// The largest PDU this end sends or receives.
    public let maximumPDULength: Int
    let channel: DescriptorChannel

    /// Two connected ends: give one to a `GATTClient`, the other to a `GATTServer`.
    /// `maximumPDULength` bounds what each end sends and receives.
    public static func makePair(
        maximumPDULength: Int = 1024
    ) throws(TransportError) -> (host: UnixSocketATTTransport, device: UnixSocketATTTransport) {
        try makePair(maximumPDULength: maximumPDULength, reads: .blocking)
    }

    /// `makePair` with the readers' mode chosen (`Bench stack` measures both).
    package static func makePair(
        maximumPDULength: Int,
        reads: DescriptorChannel.ReadMode
    ) throws(TransportError) -> (host: UnixSocketATTTransport, device: UnixSocketATTTransport) {
        var pair: (CInt, CInt) = (-1, -1)
        let type = CInt(SOCK_SEQPACKET.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        do throws(SystemError) {
            _ = try withUnsafeMutablePointer(to: &pair) { pointer throws(SystemError) in
                try pointer.withMemoryRebound(to: CInt.self, capacity: 2) { fds throws(SystemError) in
                    try blockingSyscall(.socketpair) { system_socketpair(AF_UNIX, type, 0, fds) }
                }
            }
            let host = OwnedDescriptor(rawValue: pair.0)
            let device = OwnedDescriptor(rawValue: pair.1)
            return (
                try end(host, name: "att-local-host", maximumPDULength: maximumPDULength, reads: reads),
                try end(device, name: "att-local-device", maximumPDULength: maximumPDULength, reads: reads)
            )
        } catch {
            throw DescriptorChannel.transportError(error)
        }
    }

    /// One end around a `SOCK_SEQPACKET` socket made elsewhere (`Bench echo` puts a bare peer thread on
    /// the other end). Takes ownership of `descriptor`; its reader reads it blocking, as `makePair`'s do.
    package static func adopting(
        _ descriptor: CInt,
        name: String,
        maximumPDULength: Int = 1024
    ) throws(TransportError) -> UnixSocketATTTransport {
        do throws(SystemError) {
            return try end(
                OwnedDescriptor(rawValue: descriptor),
                name: name,
                maximumPDULength: maximumPDULength,
                reads: .blocking
            )
        } catch {
            throw DescriptorChannel.transportError(error)
        }
    }

    /// One end: a channel on `socket` whose reader takes PDUs of up to `maximumPDULength` bytes.
    private static func end(
        _ socket: consuming OwnedDescriptor,
        name: String,
        maximumPDULength: Int,
        reads: DescriptorChannel.ReadMode
    ) throws(SystemError) -> UnixSocketATTTransport {
        let channel = try DescriptorChannel(
            socket: socket,
            name: name,
            receiveCapacity: maximumPDULength,
            reads: reads
        )
        return UnixSocketATTTransport(channel: channel, maximumPDULength: maximumPDULength)
    }

    private init(channel: DescriptorChannel, maximumPDULength: Int) {
        self.channel = channel
        self.maximumPDULength = maximumPDULength
    }

    /// Sends one PDU as one message.
    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        try channel.sendPDU(pdu, limit: maximumPDULength)
    }

    /// Starts this end's reader thread: `receive` gets each PDU, `closed` the reason once it stops.
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try channel.startPDUs(receive: receive, closed: closed)
    }

    /// Drops the link as a peer going out of range would: both ends see a disconnection, not a
    /// local close.
    public func disconnect() {
        _ = try? channel.withSocket { socket throws(SystemError) in try socket.shutdown() }
    }

    /// Closes this end: its reader stops with `.closed`, the other end sees a disconnection.
    public func close() { channel.close() }

    deinit { channel.close() }
}
