import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The write end of the self-pipe; the signal handler's only state (an atomic load is async-signal-safe).
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// The handler of every signal the stop path catches: the signal's number into the pipe, nothing else.
private let forwardSignal: @convention(c) (Int32) -> Void = { number in
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
}

/// The one shutdown path of every command that talks to a device.
///
/// SIGINT, SIGTERM, SIGHUP and SIGPIPE are caught by a handler that only writes the signal's number
/// into a pipe; a dedicated thread reads the pipe and acts, so nothing polls and nothing unsafe runs in
/// signal context. (A closed output seen as `EPIPE` by a write goes the same way through `stop(_:)`.)
/// SIGPIPE stops the command only when standard output lost its reader: the signal names no
/// descriptor, and a closed standard error (`2>&1 | head`) must not end a run whose output is fine.
///
/// - The first stop runs the command's stop action (`onStop`): by default it cancels the command's
///   work (`run`), which cancels any ATT request, connect or Pico command in flight; a run in progress
///   installs an action that aborts the device with `Z` first.
/// - Cleanup is bounded: if the process has not exited `cleanupBound` after the first stop, or a second
///   signal comes, the urgent action (`onUrgentExit`, which finishes the sinks with their end marker)
///   runs and the process exits at once with the first stop's status.
public final class Shutdown: Sendable {
    /// The process's one stop path.
    public static let shared = Shutdown()

    private struct State {
        var installed = false
        var reason: StopReason?
        var cleanupBound: Duration = .seconds(5)
        var onStop: (@Sendable (StopReason) -> Void)?
        var onUrgentExit: (@Sendable (String) -> Void)?
        var cancelWork: (@Sendable () -> Void)?
        /// When set, SIGHUP calls it (the rig reloads its config) instead of stopping.
        var onHangUp: (@Sendable () -> Void)?
        /// When set, SIGINT calls it (the console aborts the run in progress) instead of stopping.
        var onInterrupt: (@Sendable () -> Void)?
        /// What the signals that do not stop the program do (SIGUSR1, SIGUSR2), by number.
        var onSignal: [Int32: @Sendable () -> Void] = [:]
        /// Where the stop path's own messages go (a program's standard error).
        var report: @Sendable (String) -> Void = { _ in }
    }

    private let state = Mutex(State())
    private let readEnd = Atomic<Int32>(-1)

    private init() {}

    /// Catches the signals from now on (once per process). `cleanupBound`: how long the clean path may
    /// take before the process ends anyway.
    /// `report`: where its own messages go (that signals cannot be caught; that cleanup overran).
    public func install(cleanupBound: Duration = .seconds(5), report: @escaping @Sendable (String) -> Void) {
        let first = state.withLock { state in
            state.cleanupBound = cleanupBound
            state.report = report
            defer { state.installed = true }
            return !state.installed
        }
        guard first else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            report("cannot set up signal handling: \(String(cString: strerror(errno)))")
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        readEnd.store(ends[0], ordering: .sequentiallyConsistent)
        signalPipeWriteEnd.store(ends[1], ordering: .sequentiallyConsistent)
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] {
            sigaddset(&set, number)
            signal(number, forwardSignal)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        Threads.start(name: "hcipico-signals") { [self] in watch() }
    }

    /// The first stop, once there was one.
    public var reason: StopReason? { state.withLock { $0.reason } }

    /// What the first stop does (replacing the earlier action); nil: cancel the work. Runs at once if a
    /// stop came already.
    public func onStop(_ action: (@Sendable (StopReason) -> Void)?) {
        let already = state.withLock { state in
            state.onStop = action
            return state.reason
        }
        if let already { (action ?? { _ in self.cancelWork() })(already) }
    }

    /// Makes SIGINT call `action` instead of stopping, until called again with nil (the console's
    /// Ctrl-C during a run: the run is aborted, the console goes on).
    public func onInterrupt(_ action: (@Sendable () -> Void)?) {
        state.withLock { $0.onInterrupt = action }
    }

    /// Makes `number`, a signal that does not stop the program (SIGUSR1, SIGUSR2), call `action` on the
    /// signal thread from now on; nil: the signal is ignored. Call it after `install`.
    public func onSignal(_ number: Int32, _ action: (@Sendable () -> Void)?) {
        precondition(![SIGINT, SIGTERM, SIGHUP, SIGPIPE].contains(number), "the stop path's own signal")
        state.withLock { $0.onSignal[number] = action }
        if action == nil {
            signal(number, SIG_IGN)
        } else {
            signal(number, forwardSignal)
        }
    }

    /// Makes SIGHUP call `action` instead of stopping (a daemon's "reload your config").
    public func onHangUp(_ action: (@Sendable () -> Void)?) {
        state.withLock { $0.onHangUp = action }
    }

    /// What must happen before the process exits at once (finish the sinks' end markers with the
    /// reason given: `interrupted (SIGTERM); interrupted (SIGINT) during cleanup`).
    public func onUrgentExit(_ action: (@Sendable (String) -> Void)?) {
        state.withLock { $0.onUrgentExit = action }
    }

    /// Runs the command's work in a task that a stop can cancel; returns its result.
    public func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await work() }
        let stopped = state.withLock { state in
            state.cancelWork = { task.cancel() }
            return state.reason != nil && state.onStop == nil
        }
        if stopped { task.cancel() }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` for at most `limit` (cancelled then, and waited for no longer): cleanup that must
    /// not hold the exit up.
    public static func bounded(_ limit: Duration, _ body: @escaping @Sendable () async -> Void) async {
        let done = Latch<Void>()
        let task = Task {
            await body()
            done.settle(())
        }
        // Waited for from a task of its own: the caller is usually cancelled already (a stop), and
        // the cleanup must still have its time.
        let finished = await Task { await done.wait(upTo: limit, on: SystemClock()) != nil }.value
        if !finished { task.cancel() }
    }

    /// Cancels the work started by `run`.
    public func cancelWork() {
        state.withLock { $0.cancelWork }?()
    }

    /// Reports a stop found by the program itself (an `EPIPE` from standard output): the same path
    /// as a signal.
    public func stop(_ reason: StopReason) {
        guard reason == .outputClosed else { return }
        // A command with nothing to clean up (no stop path installed) ends at once, as SIGPIPE would.
        guard state.withLock({ $0.installed }) else { _exit(StopReason.outputClosed.exitCode) }
        var byte = Self.outputClosedByte
        _ = write(signalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
    }

    /// The byte `stop(.outputClosed)` writes: an output known to be closed (no signal has this number).
    private static let outputClosedByte: UInt8 = 0xFF

    /// Whether standard output is a pipe or socket whose reader has gone (`poll` reports `POLLERR`
    /// on such a write end), the only output whose loss a bare SIGPIPE stands for.
    public static func standardOutputLost() -> Bool {
        var poller = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, 0) > 0 else { return false }
        return poller.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// The signal thread: waits for a signal byte; after the first stop, also for the cleanup bound.
    private func watch() {
        let fd = readEnd.load(ordering: .sequentiallyConsistent)
        var deadline: ContinuousClock.Instant?
        while true {
            var waitMilliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                waitMilliseconds = Int32(max(0, min(milliseconds, 3_600_000)))
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, waitMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 {
                exitNow(because: "cleanup took longer than \(state.withLock { $0.cleanupBound })")
            }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { continue }
            if let action = state.withLock({ $0.onSignal[Int32(byte)] }) {
                action()
                continue
            }
            if Int32(byte) == SIGHUP, let reload = state.withLock({ $0.reason == nil ? $0.onHangUp : nil }) {
                reload()
                continue
            }
            if Int32(byte) == SIGINT, let interrupt = state.withLock({ $0.reason == nil ? $0.onInterrupt : nil }) {
                interrupt()
                continue
            }
            if Int32(byte) == SIGPIPE && !Self.standardOutputLost() {
                continue  // standard error or another descriptor: its writer sees EPIPE and says so
            }
            let closed = byte == Self.outputClosedByte || Int32(byte) == SIGPIPE
            let reason: StopReason = closed ? .outputClosed : .signal(Int32(byte))
            let (isFirst, action, bound) = state.withLock { state in
                guard state.reason == nil else { return (false, state.onStop, state.cleanupBound) }
                state.reason = reason
                return (true, state.onStop, state.cleanupBound)
            }
            if isFirst {
                deadline = .now + bound
                (action ?? { _ in self.cancelWork() })(reason)
            } else if reason != .outputClosed {
                exitNow(because: "\(reason) during cleanup")
            }
        }
    }

    /// Runs the urgent action and exits with the first stop's status.
    private func exitNow(because why: String) -> Never {
        let (reason, action, report) = state.withLock { ($0.reason, $0.onUrgentExit, $0.report) }
        let first = reason ?? .signal(SIGINT)
        report("\(first): \(why); exiting now")
        action?("\(first); \(why)")
        _exit(first.exitCode)
    }
}
