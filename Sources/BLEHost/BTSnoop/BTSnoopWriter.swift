public import BLEWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes a btsnoop file (H4 datalink 1002; `BTSnoopRecord` has the format) that Wireshark and
/// `btmon -r` open. Thread-safe; records are buffered and written when 16 KiB gather, at `flush()`
/// and at `close()`.
public final class BTSnoopWriter: Sendable {
    /// The file being written.
    public let path: String
    private let state: Mutex<State>

    private struct State {
        var descriptor: Int32
        var buffer = ByteWriter(capacity: 32 * 1024)
        var failure: Int32?
    }

    /// Creates (or truncates) `path` and writes the file header.
    public init(path: String) throws(TransportError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .system(syscall: "open", errno: errno) }
        self.path = path
        var header = ByteWriter(capacity: BTSnoopRecord.fileHeaderLength)
        BTSnoopRecord.encodeFileHeader(into: &header)
        state = Mutex(State(descriptor: descriptor, buffer: header))
    }

    /// Appends one H4 packet. `received` is true for controller → host.
    public func record(_ indicator: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer, received: Bool) {
        let now = Self.unixMicroseconds()
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            BTSnoopRecord.encodeHeader(
                into: &state.buffer,
                length: packet.count + 1,
                received: received,
                indicator: indicator,
                unixMicroseconds: now
            )
            state.buffer.write(indicator.rawValue)
            state.buffer.write(contentsOf: packet)
            if state.buffer.count >= 16 * 1024 { Self.drain(&state) }
        }
    }

    /// Appends an ATT PDU as the ACL packet that would carry it (L2CAP CID 4, one unfragmented ACL
    /// packet on `handle`): the kernel path calls this, because there the kernel keeps HCI, ACL and L2CAP.
    public func recordATT(_ pdu: UnsafeRawBufferPointer, handle: UInt16, received: Bool) {
        withUnsafeTemporaryAllocation(byteCount: 8 + pdu.count, alignment: 1) { packet in
            let aclLength = 4 + pdu.count
            let word = handle & 0x0FFF | (received ? 0b10 : 0b00) << 12
            packet[0] = UInt8(truncatingIfNeeded: word)
            packet[1] = UInt8(truncatingIfNeeded: word >> 8)
            packet[2] = UInt8(truncatingIfNeeded: aclLength)
            packet[3] = UInt8(truncatingIfNeeded: aclLength >> 8)
            packet[4] = UInt8(truncatingIfNeeded: pdu.count)
            packet[5] = UInt8(truncatingIfNeeded: pdu.count >> 8)
            packet[6] = 0x04
            packet[7] = 0x00
            if !pdu.isEmpty { UnsafeMutableRawBufferPointer(rebasing: packet[8...]).copyMemory(from: pdu) }
            record(.acl, UnsafeRawBufferPointer(packet), received: received)
        }
    }

    /// Writes what is buffered. Returns the errno of the first failed write, if any.
    @discardableResult
    public func flush() -> Int32? {
        state.withLock { state in
            Self.drain(&state)
            return state.failure
        }
    }

    /// Flushes and closes the file. Idempotent.
    public func close() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            Self.drain(&state)
            _ = Glibc.close(state.descriptor)
            state.descriptor = -1
        }
    }

    deinit { close() }

    private static func drain(_ state: inout State) {
        guard state.descriptor >= 0, state.buffer.count > 0 else { return }
        let descriptor = state.descriptor
        var failure: Int32?
        state.buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if let failure, state.failure == nil { state.failure = failure }
        state.buffer.reset()
    }

    static func unixMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
