import Coordination
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one way tests run a program: started with `posix_spawn` (Foundation's `Process` needs a
/// socketpair the qemu guest's minimal system cannot give it, and its `run()` can read past a buffer
/// while it lists `/proc/self/fd`, which crashed the unit tests once), in a directory, with its standard input
/// read from given bytes and its standard output and error going to temporary files, so that no pipe
/// can fill and stall it and a test can read them while it runs. The files go when this does.
public final class TestProgram: @unchecked Sendable {
    /// How a program ended.
    public struct Outcome: Sendable {
        /// The exit status, or minus the signal that ended it.
        public var status: Int32
        /// Everything it wrote to standard output and error.
        public var output: [UInt8]
        public var error: [UInt8]
        /// Seconds from the first signal `send` gave it to its end (0 when none was sent).
        public var secondsAfterSignal: Double

        /// Standard output as UTF-8 text.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        /// Standard error as UTF-8 text.
        public var errorText: String { String(decoding: error, as: UTF8.self) }
    }

    /// Why a program could not be started.
    public struct StartFailure: Error, CustomStringConvertible {
        /// The program and the errno of the failed step.
        public let description: String
    }

    /// The process id.
    public let pid: pid_t
    /// The read end of standard output when it is a pipe (`pipeOutput`): close it to play a reader
    /// that goes away, as `head` does.
    public let outputPipe: FileHandle?
    private let outPath: String
    private let errPath: String
    private let lock = NSLock()
    private var ended: Int32?
    private var signalled: ContinuousClock.Instant?

    /// Starts `program` (a path) with `arguments`, in `directory` (nil: this process's), with
    /// `environment` added to this process's, reading `input` on standard input (nil: an empty one).
    /// With `pipeOutput`, standard output is a pipe read through `outputPipe` instead of a file.
    public init(
        _ program: String,
        _ arguments: [String],
        in directory: URL? = nil,
        environment: [String: String] = [:],
        input: [UInt8]? = nil,
        pipeOutput: Bool = false
    ) throws {
        func temporary() -> (CInt, String) {
            var template = Array("/tmp/hcipico-test-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            return (fd, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let (inFD, inPath) = temporary()
        let (outFD, outPath) = temporary()
        let (errFD, errPath) = temporary()
        defer {
            close(inFD)
            close(outFD)
            close(errFD)
            unlink(inPath)
        }
        self.outPath = outPath
        self.errPath = errPath
        func fail(_ step: String) -> StartFailure {
            let failure = StartFailure(description: "\(program): \(step) failed (errno \(errno))")
            unlink(outPath)
            unlink(errPath)
            return failure
        }
        guard inFD >= 0, outFD >= 0, errFD >= 0 else { throw fail("mkstemp") }
        if let input, !input.isEmpty {
            let written = input.withUnsafeBytes { write(inFD, $0.baseAddress, $0.count) }
            guard written == input.count, lseek(inFD, 0, SEEK_SET) == 0 else { throw fail("writing the input") }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inFD, 0)
        var pipeEnds: [CInt] = [-1, -1]
        if pipeOutput {
            guard pipe(&pipeEnds) == 0 else { throw fail("pipe") }
            // Neither end leaks into the child beyond its standard output (dup2 clears the flag there).
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outFD, 1)
        }
        defer { if pipeOutput { close(pipeEnds[1]) } }
        posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        if let directory {
            guard let addChdir = Self.addChdir else { throw fail("finding posix_spawn_file_actions_addchdir_np") }
            _ = addChdir(&actions, directory.path)
        }
        // Nothing else of this process (another test's FIFO or socket) stays open in the child.
        guard let addCloseFrom = Self.addCloseFrom else {
            throw fail("finding posix_spawn_file_actions_addclosefrom_np")
        }
        _ = addCloseFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        // The child starts as from a shell: no signal blocked, and the usual ones at their default
        // action, whatever this thread of the test process blocks or ignores.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard status == 0 else {
            if pipeOutput { close(pipeEnds[0]) }
            errno = status
            throw fail("posix_spawn")
        }
        self.pid = pid
        outputPipe = pipeOutput ? FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true) : nil
    }

    deinit {
        if lock.withLock({ ended == nil }) {
            kill(pid, SIGKILL)
            _ = wait()
        }
        unlink(outPath)
        unlink(errPath)
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later) and
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34), which the Glibc module does not declare.
    private typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>
    private typealias AddChdir = @convention(c) (Actions, UnsafePointer<CChar>) -> CInt
    private typealias AddCloseFrom = @convention(c) (Actions, CInt) -> CInt
    private static let addChdir = glibc("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)
    private static let addCloseFrom = glibc("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)

    private static func glibc<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }

    /// Runs `program` to its end.
    public static func run(
        _ program: String,
        _ arguments: [String],
        in directory: URL? = nil,
        environment: [String: String] = [:],
        input: [UInt8]? = nil
    ) throws -> Outcome {
        try TestProgram(program, arguments, in: directory, environment: environment, input: input).finish()
    }

    /// The `hcipico` built next to the running test binary (found through /proc/self/exe: argv[0] may
    /// be a bare name on PATH).
    public static func hcipico() throws -> String {
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        guard length > 0 else { throw StartFailure(description: "readlink /proc/self/exe failed") }
        let executable = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let binary = String(executable[...(executable.lastIndex(of: "/") ?? executable.startIndex)]) + "hcipico"
        guard access(binary, X_OK) == 0 else {
            throw StartFailure(description: "build hcipico first (swift build): \(binary)")
        }
        return binary
    }

    /// What the program wrote to standard output so far.
    public var output: [UInt8] { Self.contents(outPath) }
    /// What the program wrote to standard error so far.
    public var error: [UInt8] { Self.contents(errPath) }
    /// Standard output so far, as UTF-8 text.
    public var outputText: String { String(decoding: output, as: UTF8.self) }
    /// Standard error so far, as UTF-8 text.
    public var errorText: String { String(decoding: error, as: UTF8.self) }

    /// Whether the program is still running (reaping it if it has just ended).
    public var isRunning: Bool {
        lock.withLock {
            guard ended == nil else { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            ended = Self.decode(status)
            return false
        }
    }

    /// Sends `signal`; the first one starts the clock of `Outcome.secondsAfterSignal`.
    /// Does nothing once the program has been reaped (its number may belong to another process by then).
    public func send(_ signal: Int32) {
        lock.withLock {
            guard ended == nil else { return }
            signalled = signalled ?? .now
            kill(pid, signal)
        }
    }

    /// Whether the program has installed a handler for `signal` (its `SigCgt` in `/proc`): before
    /// that, a signal finds the default action (or one the program inherited).
    public func catches(_ signal: Int32) -> Bool {
        guard signal > 0, signal <= 64,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// Polls `condition` every 20 ms for up to `timeout`; false on time-out, or when the program ended
    /// without it holding.
    public func wait(until condition: () -> Bool, timeout: Duration = .seconds(30)) -> Bool {
        _ = eventuallyBlocking(timeout, every: .milliseconds(20)) { condition() || !isRunning }
        return condition()
    }

    /// `wait(until:timeout:)` without holding a thread of the small cooperative pool.
    public func waitAsync(until condition: () -> Bool, timeout: Duration = .seconds(30)) async -> Bool {
        _ = await eventually(timeout, every: .milliseconds(20)) { condition() || !isRunning }
        return condition()
    }

    /// Waits for the end and says how it went.
    public func finish() -> Outcome {
        let status = wait()
        let seconds = lock.withLock { signalled }.map { (ContinuousClock.now - $0).inSeconds } ?? 0
        return Outcome(status: status, output: output, error: error, secondsAfterSignal: seconds)
    }

    /// `finish()` without holding a thread of the cooperative pool while the program runs: the wait
    /// is on a thread of its own, so the end (and the seconds after a signal) is taken when the program
    /// ends, not when a held-back task next looks. A cancelled caller polls instead.
    public func finishAsync() async -> Outcome {
        if let outcome = await Threads.blocking(name: "test-program", { self.finish() }) { return outcome }
        while isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        return finish()
    }

    private func wait() -> Int32 {
        if let ended = lock.withLock({ ended }) { return ended }
        var status: Int32 = 0
        var result: pid_t = -1
        repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
        guard result == pid else {
            // `isRunning` reaped it on another thread: its status is on its way.
            while true {
                if let ended = lock.withLock({ ended }) { return ended }
                usleep(1000)
            }
        }
        let decoded = Self.decode(status)
        return lock.withLock {
            ended = ended ?? decoded
            return ended!
        }
    }

    private static func decode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
    }

    /// The whole of the file at `path` (empty when it cannot be read).
    private static func contents(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
