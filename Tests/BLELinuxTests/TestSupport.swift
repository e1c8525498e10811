import BLEHost
import BLETesting
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// Collects what a reader thread hands over, for the test thread to check.
final class Recorder: Sendable {
    private let state = Mutex<(pdus: [[UInt8]], closes: [TransportError])>(([], []))

    func received(_ bytes: UnsafeRawBufferPointer) { state.withLock { $0.pdus.append(Array(bytes)) } }
    func closed(_ reason: TransportError) { state.withLock { $0.closes.append(reason) } }
    var pdus: [[UInt8]] { state.withLock { $0.pdus } }
    var closes: [TransportError] { state.withLock { $0.closes } }
}

/// A connected pair of non-blocking local sockets of `type` (SOCK_SEQPACKET keeps PDU boundaries).
func socketPair(_ type: Int32 = Int32(SOCK_SEQPACKET.rawValue)) -> (CInt, CInt) {
    var fds: [CInt] = [-1, -1]
    let result = socketpair(AF_UNIX, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
    precondition(result == 0, "socketpair failed: \(errno)")
    return (fds[0], fds[1])
}

/// Writes `bytes` to a raw descriptor (the test's end of a pair), waiting while its buffer is full.
func put(_ fd: CInt, _ bytes: [UInt8]) {
    var written = -1
    let done = eventuallyBlocking {
        written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written >= 0 || errno != EAGAIN
    }
    precondition(done && written == bytes.count, "write to the test peer failed: \(errno)")
}

/// Reads one datagram from the test's end, waiting up to five seconds.
func take(_ fd: CInt) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var result = -1
    _ = eventuallyBlocking {
        result = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return result >= 0 || errno != EAGAIN
    }
    return result >= 0 ? Array(buffer[..<result]) : nil
}

/// The little-endian bytes of an integer.
func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

/// Reads one datagram from the test's end, waiting up to five seconds without blocking a thread of
/// the cooperative pool (the code under test may need it to send).
func received(_ fd: CInt) async -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var datagram: [UInt8]?
    var failed = false
    _ = await eventually(.seconds(5)) {
        let result = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if result >= 0 { datagram = Array(buffer[..<result]) }
        failed = result < 0 && errno != EAGAIN
        return datagram != nil || failed
    }
    return datagram
}
