import BLEHost
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

/// Polls `condition` every millisecond for up to `seconds`; true once it holds.
func eventually(within seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
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
    let done = eventually {
        written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written >= 0 || errno != EAGAIN
    }
    precondition(done && written == bytes.count, "write to the test peer failed: \(errno)")
}

/// Reads one datagram from the test's end, waiting up to five seconds.
func take(_ fd: CInt) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var result = -1
    _ = eventually {
        result = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return result >= 0 || errno != EAGAIN
    }
    return result >= 0 ? Array(buffer[..<result]) : nil
}

/// The little-endian bytes of an integer.
func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

/// The error `body` throws, or nil when it succeeds.
func failure<Value>(_ body: () throws(BLELinuxError) -> Value) -> BLELinuxError? {
    do throws(BLELinuxError) {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Reads one datagram from the test's end, waiting up to five seconds without blocking a thread of
/// the cooperative pool (the code under test may need it to send).
func received(_ fd: CInt) async -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<5000 {
        let result = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if result >= 0 { return Array(buffer[..<result]) }
        if errno != EAGAIN { return nil }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return nil
}

/// The `hcipico` built next to this test binary (found through /proc/self/exe: argv[0] may be a bare
/// name on PATH).
func builtHCIPico() throws -> String {
    var path = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &path, path.count - 1)
    try #require(length > 0)
    let executable = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let binary = String(executable[...(executable.lastIndex(of: "/") ?? executable.startIndex)]) + "hcipico"
    try #require(access(binary, X_OK) == 0, "build hcipico first (swift build): \(binary)")
    return binary
}

/// Runs `program` with `arguments` (posix_spawn, output to temporary files) and waits for it.
func runProgram(_ program: String, _ arguments: [String]) -> (status: Int32, stdout: String, stderr: String)? {
    guard let running = RunningProgram(program, arguments) else { return nil }
    let status = running.wait()
    return (status, running.stdout, running.stderr)
}

/// Runs `program` with `arguments` and `input` on standard input (nil: the caller's), and waits for it.
/// posix_spawn rather than Foundation's Process, which needs a socketpair the qemu guest's minimal
/// system cannot give it.
func runProgram(
    _ program: String,
    _ arguments: [String],
    input: [UInt8]?
) -> (status: Int32, stdout: [UInt8], stderr: [UInt8])? {
    guard let running = RunningProgram(program, arguments, input: input) else { return nil }
    let status = running.wait()
    return (status, running.stdoutBytes, running.stderrBytes)
}
