public import BLEHost
public import BLEWire
internal import CBlueZ
internal import Glibc
import Synchronization

/// Writes a btsnoop file (H4 datalink 1002; `BTSnoopRecord` has the format) that Wireshark and
/// `btmon -r` open: the `HCIPacketCapture` the capture transports write into. Thread-safe; records are
/// buffered and written when 16 KiB gather, at `flush()` and at `close()`.
public final class BTSnoopWriter: HCIPacketCapture {
    /// The file being written.
    public let path: String
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var file: OwnedDescriptor?
        var buffer = ByteWriter(capacity: 32 * 1024)
        var failure: Int32?
    }

    /// Creates (or truncates) `path`, mode 0644, and buffers the file header.
    public init(path: String) throws(TransportError) {
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        let descriptor: CInt
        do throws(SystemError) {
            descriptor = try blockingSyscall(.open) { system_open(path, flags, mode: 0o644) }
        } catch {
            throw .system(syscall: error.syscall.rawValue, errno: error.errno)
        }
        self.path = path
        var header = ByteWriter(capacity: BTSnoopRecord.fileHeaderLength)
        BTSnoopRecord.encodeFileHeader(into: &header)
        state = Mutex(State(file: OwnedDescriptor(rawValue: descriptor), buffer: header))
    }

    /// Appends one H4 packet, stamped with the wall clock. `received` is true for controller → host.
    public func record(_ indicator: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer, received: Bool) {
        let now = Self.unixMicroseconds()
        state.withLock { state in
            guard state.file != nil else { return }
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
            Self.drain(&state)
            if let file = state.file.take() { try? file.close() }
        }
    }

    deinit { close() }

    private static func drain(_ state: inout State) {
        guard state.buffer.count > 0 else { return }
        defer { state.buffer.reset() }
        guard let file = state.file.take() else { return }
        let failure = state.buffer.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                do throws(SystemError) {
                    let remaining = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                    guard case .processed(let written) = try file.write(remaining) else { return EAGAIN }
                    offset += written
                } catch {
                    return error.errno
                }
            }
            return nil
        }
        state.file = consume file
        if let failure, state.failure == nil { state.failure = failure }
    }

    static func unixMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
