import BLEHost
import Coordination
import MethodSCRIPT
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The reply side of a `PicoSession`: fed on the transport's reader thread with every TX notification,
/// it frames and parses the reply stream and hands events to whoever waits (a run's stream, `version()`,
/// `abort()`).
///
/// Hot path: `receive` feeds the `ReplyParser` (no allocation), which hands over each package's values
/// at once when its line is complete; they become a `PicoPackage` there: the first allocation is the
/// handover. The mode lock is taken once per package or structural line, never per value, and nothing
/// here waits for the run's consumer (`EventBacklog` bounds what is queued and counts the rest).
final class PicoReceiver: @unchecked Sendable {
    /// Touched only on the reader thread (that is what makes the unchecked conformance sound).
    private let parser = ReplyParser()

    let mode = Mutex(Mode.idle)

    /// What the session is doing. Every payload is a class or of fixed size: a continuation (a resilient
    /// type, its size known only at run time) held here directly would make each lock of the mode, one
    /// per package, look up the enum's layout and copy it through value witnesses.
    enum Mode {
        case idle
        case version(lines: [String], waiter: ReplyWaiter<[String]>)
        /// Waiting for the one-line reply to `i`.
        case serialNumber(ReplyWaiter<String>)
        case run(RunContext)
        case closed(String)
    }

    /// The `version()` or `serialNumber()` call waiting for its reply, with its token.
    final class ReplyWaiter<Value: Sendable>: Sendable {
        let continuation: CheckedContinuation<Result<Value, PicoSessionError>, Never>
        let token: UInt64

        init(_ continuation: CheckedContinuation<Result<Value, PicoSessionError>, Never>, token: UInt64) {
            self.continuation = continuation
            self.token = token
        }

        func resume(returning result: Result<Value, PicoSessionError>) { continuation.resume(returning: result) }
    }

    /// A run in progress. A class, changed in place under the mode lock (which is what makes the
    /// unchecked conformance sound): a struct payload would be copied out of the enum and back for
    /// every package.
    final class RunContext: @unchecked Sendable {
        let continuation: AsyncThrowingStream<PicoEvent, any Error>.Continuation
        let device: String
        let run: Int
        let lines: [String]
        /// The text's line number of `lines[0]` (`PicoScript.firstLineNumber`).
        let firstLineNumber: Int
        /// The script's `pck_add` names per package length (see `PicoScript.names(forPackageOf:)`).
        let names: [Int: [String]]
        let backlog: EventBacklog
        var packages = 0
        /// The measurement loop and scan in progress, numbered from 1 as every output numbers them.
        var loop = 0
        var scan: Int?
        var nextScan = 1
        var aborting = false

        init(
            continuation: AsyncThrowingStream<PicoEvent, any Error>.Continuation,
            device: String,
            run: Int,
            lines: [String],
            firstLineNumber: Int,
            names: [Int: [String]],
            backlog: EventBacklog
        ) {
            self.continuation = continuation
            self.device = device
            self.run = run
            self.lines = lines
            self.firstLineNumber = firstLineNumber
            self.names = names
            self.backlog = backlog
        }
    }

    /// Waiting for the reply to `Z`, with the token of the `abort()` call that waits.
    let abortWaiter = Mutex<AbortWaiter?>(nil)

    struct AbortWaiter {
        let continuation: CheckedContinuation<Result<DeviceErrorCode?, PicoSessionError>, Never>
        let token: UInt64
    }

    /// Tokens that tie a timeout or a cancellation to the one `version()` or `abort()` call it belongs to.
    private let tokens = Atomic<UInt64>(0)

    func makeToken() -> UInt64 { tokens.add(1, ordering: .relaxed).newValue }

    /// Lines of a script's output (packages, loop marks, text) that arrived while this session ran no
    /// script: a script left running by an earlier host.
    let strayOutput = Atomic<Int>(0)
    /// How many of them `PicoSession.takeOver` has dealt with.
    let strayHandled = Atomic<Int>(0)
    /// Settled at the next end of a script (this session's run or a stray one) or when the link closes.
    private let scriptEndWaiters = Mutex<[Latch<Void>]>([])

    /// Settled at the next stray line.
    private let strayWaiters = Mutex<[Latch<Void>]>([])

    /// A latch settled at the next line of output of a script this session does not run.
    func nextStrayOutput() -> Latch<Void> {
        let latch = Latch<Void>()
        strayWaiters.withLock { $0.append(latch) }
        return latch
    }

    private func strayArrived() {
        strayOutput.add(1, ordering: .relaxed)
        for latch in strayWaiters.withLock({ waiters in
            defer { waiters = [] }
            return waiters
        }) {
            latch.settle(())
        }
    }

    /// A latch settled at the next end of a script, or when the link closes; take it before what may
    /// cause the end (`Z`), so that it cannot be missed.
    func nextScriptEnd() -> Latch<Void> {
        let latch = Latch<Void>()
        scriptEndWaiters.withLock { $0.append(latch) }
        return latch
    }

    private func scriptEnded() {
        for latch in scriptEndWaiters.withLock({ waiters in
            defer { waiters = [] }
            return waiters
        }) {
            latch.settle(())
        }
    }

    /// TX notifications received (one relaxed atomic add on the reader thread; read for metrics).
    let notifications = Atomic<Int>(0)

    /// Reader thread: one notification value.
    func receive(_ chunk: UnsafeRawBufferPointer) {
        notifications.add(1, ordering: .relaxed)
        parser.feed(chunk) { event, _ in handle(event) }
    }

    /// The link closed: fail whatever waits. A run's stream ends with `connectionLost` after every
    /// package already yielded.
    func closed(_ reason: String) {
        let old = mode.withLock { mode in
            defer { mode = .closed(reason) }
            return mode
        }
        switch old {
        case .run(let context): context.continuation.finish(throwing: PicoSessionError.connectionLost(reason))
        case .version(_, let waiter): waiter.resume(returning: .failure(.connectionLost(reason)))
        case .serialNumber(let waiter): waiter.resume(returning: .failure(.connectionLost(reason)))
        case .idle, .closed: break
        }
        abortWaiter.withLock { waiter in
            waiter?.continuation.resume(returning: .failure(.connectionLost(reason)))
            waiter = nil
        }
        scriptEnded()
    }

    /// Why the link closed, once it has.
    var closeReason: String? {
        mode.withLock { mode in
            if case .closed(let reason) = mode { return reason }
            return nil
        }
    }

    /// Fails the `version()` call that holds `token` (and no later one).
    func failVersion(_ error: PicoSessionError, token: UInt64) {
        mode.withLock { mode in
            guard case .version(_, let waiter) = mode, waiter.token == token else { return }
            mode = .idle
            waiter.resume(returning: .failure(error))
        }
    }

    /// Makes `waiting` the mode when the session is idle (a command that waits for its reply); otherwise
    /// says why not. Checks for cancellation under the lock the command's `fail` takes.
    func claimIdle(_ waiting: Mode) -> PicoSessionError? {
        mode.withLock { mode in
            if Task.isCancelled { return .cancelled }
            switch mode {
            case .idle:
                mode = waiting
                return nil
            case .closed(let reason): return .connectionLost(reason)
            case .run, .version, .serialNumber: return .busy("a run or command is in progress")
            }
        }
    }

    /// Fails the `serialNumber()` call that holds `token` (and no later one).
    func failSerialNumber(_ error: PicoSessionError, token: UInt64) {
        mode.withLock { mode in
            guard case .serialNumber(let waiter) = mode, waiter.token == token else { return }
            mode = .idle
            waiter.resume(returning: .failure(error))
        }
    }

    /// Fails the `abort()` call that holds `token` (and no later one).
    func failAbort(_ error: PicoSessionError, token: UInt64) {
        abortWaiter.withLock { waiter in
            guard let current = waiter, current.token == token else { return }
            current.continuation.resume(returning: .failure(error))
            waiter = nil
        }
    }

    /// Ends a run whose upload failed.
    func failRun(_ error: PicoSessionError) {
        mode.withLock { mode in
            guard case .run(let context) = mode else { return }
            context.continuation.finish(throwing: error)
            if case .connectionLost(let reason) = error { mode = .closed(reason) } else { mode = .idle }
        }
    }

    /// The next end of the run comes from an abort.
    func markAborting() {
        mode.withLock { mode in
            guard case .run(let context) = mode else { return }
            context.aborting = true
        }
    }

    private func handle(_ event: ReplyEvent) {
        switch event {
        case .package(let samples):
            packageComplete(samples)
        case .version(let bytes, let isLast):
            let line = String(decoding: bytes, as: UTF8.self)
            mode.withLock { mode in
                guard case .version(var lines, let waiter) = mode else { return }
                lines.append(line)
                if isLast {
                    mode = .idle
                    waiter.resume(returning: .success(lines))
                } else {
                    mode = .version(lines: lines, waiter: waiter)
                }
            }
        case .serialNumber(let bytes):
            let serial = String(decoding: bytes, as: UTF8.self)
            mode.withLock { mode in
                guard case .serialNumber(let waiter) = mode else { return }
                mode = .idle
                waiter.resume(returning: .success(serial))
            }
        case .abortReply(let code):
            abortWaiter.withLock { waiter in
                waiter?.continuation.resume(returning: .success(code))
                waiter = nil
            }
        case .deviceError(let reply):
            deviceError(reply)
        case .scriptEnd:
            mode.withLock { mode in
                guard case .run(let context) = mode else {
                    strayArrived()
                    return
                }
                let overflowed = context.backlog.overflowed
                if overflowed > 0 { context.continuation.yield(.overflowed(packages: overflowed)) }
                context.continuation.yield(.ended(aborted: context.aborting, packages: context.packages))
                context.continuation.finish()
                mode = .idle
            }
            scriptEnded()
        case .malformed(let error, let raw):
            let text = String(decoding: raw, as: UTF8.self)
            inRun { context in
                if context.aborting, case .unclosedScope = error.reason { return }
                context.continuation.yield(.malformed("\(error): \(text)"))
            }
        case .text(let bytes):
            let text = String(decoding: bytes, as: UTF8.self)
            inRun { $0.continuation.yield(.text(text)) }
        default:
            structure(event)
        }
    }

    private func structure(_ event: ReplyEvent) {
        inRun { context in
            switch event {
            case .executeAccepted: context.continuation.yield(.accepted)
            case .measurementLoopStart:
                context.loop += 1
                context.scan = nil
                context.nextScan = 1
                context.continuation.yield(.loopStarted(loop: context.loop))
            case .measurementLoopEnd: context.continuation.yield(.loopEnded(loop: context.loop))
            case .scanStart:
                context.scan = context.nextScan
                context.nextScan += 1
                context.continuation.yield(.scanStarted(loop: context.loop, scan: context.scan ?? 1))
            case .scanEnd:
                context.continuation.yield(.scanEnded(loop: context.loop, scan: context.scan ?? 1))
                context.scan = nil
            case .loopStart: context.continuation.yield(.plainLoopStarted)
            case .loopEnd: context.continuation.yield(.plainLoopEnded)
            default: break
            }
        }
    }

    private func deviceError(_ reply: DeviceErrorReply) {
        mode.withLock { mode in
            switch mode {
            case .run(let context):
                let text = reply.scriptLine.flatMap {
                    $0 >= 1 && $0 <= context.lines.count ? context.lines[$0 - 1] : nil
                }
                let error = PicoDeviceError(
                    code: reply.code,
                    line: reply.scriptLine.map { $0 + context.firstLineNumber - 1 },
                    column: reply.scriptColumn,
                    lineText: text
                )
                context.continuation.yield(.deviceError(error))
            case .version(_, let waiter):
                mode = .idle
                let error = PicoDeviceError(code: reply.code, line: nil, column: nil, lineText: nil)
                waiter.resume(returning: .failure(.device(error)))
            case .serialNumber(let waiter):
                mode = .idle
                let error = PicoDeviceError(code: reply.code, line: nil, column: nil, lineText: nil)
                waiter.resume(returning: .failure(.device(error)))
            case .idle, .closed:
                break
            }
        }
    }

    /// Runs `body` with the run in progress, under the mode lock; nothing when no run is.
    private func inRun(_ body: (RunContext) -> Void) {
        mode.withLock { mode in
            guard case .run(let context) = mode else {
                strayArrived()
                return
            }
            body(context)
        }
    }

    private func packageComplete(_ samples: UnsafeBufferPointer<Sample>) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let hostTime = Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
        inRun { context in
            defer { context.packages += 1 }
            // Never wait for the consumer: past the backlog's bound the package is counted, not queued.
            guard context.backlog.admit() else { return }
            let names = context.names[samples.count]
            var values: [PicoValue] = []
            values.reserveCapacity(samples.count)
            for (position, sample) in samples.enumerated() {
                values.append(PicoValue(sample: sample, name: names?[position]))
            }
            let package = PicoPackage(
                device: context.device,
                run: context.run,
                index: context.packages,
                loop: max(1, context.loop),
                scan: context.scan,
                hostTime: hostTime,
                values: values
            )
            context.continuation.yield(.package(package))
        }
    }
}
