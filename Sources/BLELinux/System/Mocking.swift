#if ENABLE_MOCKING
internal import Glibc
import Synchronization

/// One recorded system call: its name, its integer arguments and the bytes it was given (a socket
/// address, an option value, the data written).
struct MockCall: Hashable, Sendable, CustomStringConvertible {
    var syscall: Syscall
    var arguments: [Int]
    var bytes: [UInt8]

    init(_ syscall: Syscall, _ arguments: [Int] = [], bytes: [UInt8] = []) {
        self.syscall = syscall
        self.arguments = arguments
        self.bytes = bytes
    }

    var description: String {
        let hex = bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
        return "\(syscall.rawValue)(\(arguments.map(String.init).joined(separator: ", ")))"
            + (bytes.isEmpty ? "" : " [\(hex)]")
    }
}

/// What a mocked system call returns: its result, the `errno` it sets when the result is -1, and the
/// bytes it writes to its output buffer (an option value, an ioctl structure, the data read), or for
/// `recvmmsg` the messages it receives.
struct MockReply: Sendable {
    var result: Int
    var errno: Int32
    var output: [UInt8]
    var messages: [[UInt8]]

    init(result: Int = 0, errno: Int32 = 0, output: [UInt8] = [], messages: [[UInt8]] = []) {
        self.result = result
        self.errno = errno
        self.output = output
        self.messages = messages
    }

    static func failure(_ errno: Int32) -> MockReply { MockReply(result: -1, errno: errno) }

    /// A `recvmmsg` that receives `messages` (an empty one reads as the end of the stream).
    static func received(_ messages: [[UInt8]]) -> MockReply { MockReply(result: messages.count, messages: messages) }
}

/// Replaces the real system calls on the current task (debug builds only): records every call and
/// answers it from `reply`. Tests read `trace` and compare it with the calls they expect. Threads this
/// module starts inherit the driver of the task that started them.
///
/// Mocked descriptors must be released inside the mocking scope, and should be numbered 900 and up:
/// one that escaped would then fail loudly (`EBADF`) instead of closing a real descriptor.
final class MockingDriver: Sendable {
    @TaskLocal static var current: MockingDriver?

    private let calls = Mutex<[MockCall]>([])
    private let reply: @Sendable (MockCall) -> MockReply

    init(reply: @escaping @Sendable (MockCall) -> MockReply) { self.reply = reply }

    var trace: [MockCall] { calls.withLock { $0 } }

    /// Runs `body` with every system call of this task answered by `reply`.
    @discardableResult
    static func withMocking<Result>(
        _ reply: @escaping @Sendable (MockCall) -> MockReply,
        _ body: (MockingDriver) throws -> Result
    ) rethrows -> Result {
        let driver = MockingDriver(reply: reply)
        return try $current.withValue(driver) { try body(driver) }
    }

    /// Runs the async `body` with every system call of this task (and of the threads it starts) answered
    /// by `reply`.
    @discardableResult
    static func withMocking<Result>(
        _ reply: @escaping @Sendable (MockCall) -> MockReply,
        _ body: (MockingDriver) async throws -> Result
    ) async rethrows -> Result {
        let driver = MockingDriver(reply: reply)
        return try await $current.withValue(driver) { try await body(driver) }
    }

    /// Records a call and returns its mocked result, copying the reply's output into `output`.
    func call(
        _ syscall: Syscall,
        _ arguments: [Int],
        input: UnsafeRawBufferPointer? = nil,
        output: UnsafeMutableRawBufferPointer? = nil
    ) -> Int {
        let answer = self.answer(syscall, arguments, input: input)
        if let output, !answer.output.isEmpty {
            let count = min(output.count, answer.output.count)
            answer.output.withUnsafeBytes { source in
                output.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: count)
            }
        }
        return answer.result
    }

    /// Records a call and returns its whole mocked reply, `errno` already set when it fails.
    func answer(_ syscall: Syscall, _ arguments: [Int], input: UnsafeRawBufferPointer? = nil) -> MockReply {
        let record = MockCall(syscall, arguments, bytes: input.map { Array($0) } ?? [])
        calls.withLock { $0.append(record) }
        let answer = reply(record)
        if answer.result == -1 { Glibc.errno = answer.errno }
        return answer
    }
}
#endif
