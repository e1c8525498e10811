public import BLEHost
public import Coordination
import Foundation
import MethodSCRIPT
import Synchronization

/// One EmStat Pico over a `PicoChannel`: the Laird VSP service of a connected `GATTClient`
/// (`VSPChannel`), or the Pico's UART on a serial port (`UARTChannel`).
///
/// ```swift
/// let session = try await PicoSession.open(client: client, name: "pico-1")
/// print(try await session.version().firmware)
/// let run = try await session.run(try PicoScript(text))
/// for try await event in run.events { … }            // ends with .ended, or throws connectionLost
/// ```
///
/// What the device sends is parsed on the channel's reader thread (`PicoReceiver`); the first async hop
/// is the run's event stream. Uploads go through the channel, paced as its device needs. One command or
/// run at a time; `abort()` may be called while a run streams.
public final class PicoSession: Sendable {
    /// The device's name in this program: `PicoPackage.device` and `RunInfo.device` of its runs.
    public let name: String
    /// What the session talks over.
    public let channel: any PicoChannel
    /// What the command timeouts run on.
    public let clock: any TimeSource
    let receiver: PicoReceiver
    private let runCounter = Mutex(0)

    private init(name: String, channel: any PicoChannel, receiver: PicoReceiver, clock: any TimeSource) {
        self.name = name
        self.channel = channel
        self.receiver = receiver
        self.clock = clock
    }

    /// Finds the VSP service on `client`, subscribes to TX and ModemOut, reads ModemOut, and sends one
    /// `\n` to clear a partial command left in the device's buffer. `clock` times the commands'
    /// timeouts (tests pass a `ManualClock`); `capture`, when given, gets every byte the device sends.
    public static func open(
        client: GATTClient,
        name: String = "pico",
        headroom: Int = VSPWriter.defaultHeadroom,
        clock: any TimeSource = SystemClock(),
        capture: RawCapture? = nil
    ) async throws(PicoSessionError) -> PicoSession {
        try await open(
            channel: try await VSPChannel.open(client: client, headroom: headroom),
            name: name,
            clock: clock,
            capture: capture
        )
    }

    /// Starts `channel` and sends one `\n` to clear a partial command left in the device's buffer;
    /// `capture`, when given, gets every byte the device sends, before the session reads it.
    public static func open(
        channel: any PicoChannel,
        name: String = "pico",
        clock: any TimeSource = SystemClock(),
        capture: RawCapture? = nil
    ) async throws(PicoSessionError) -> PicoSession {
        let receiver = PicoReceiver()
        if let capture {
            try await channel.start(
                receive: { chunk in
                    capture.append(chunk)
                    receiver.receive(chunk)
                },
                ended: { reason in receiver.closed(reason) }
            )
        } else {
            try await channel.start(
                receive: { chunk in receiver.receive(chunk) },
                ended: { reason in receiver.closed(reason) }
            )
        }
        let session = PicoSession(name: name, channel: channel, receiver: receiver, clock: clock)
        try await channel.send([0x0A])
        return session
    }

    /// The VSP channel, when the session runs over Bluetooth LE.
    public var vsp: VSPChannel? { channel as? VSPChannel }

    /// Whether the link is up.
    public var isConnected: Bool { channel.endReason == nil }

    /// Chunks of the device's bytes (TX notifications, or UART reads) received on this session so far.
    public var notificationsReceived: Int { receiver.notifications.load(ordering: .relaxed) }

    /// Runs started so far.
    public var runCount: Int { runCounter.withLock { $0 } }

    /// Asks the firmware version (`t`). Fails with `.timeout` when no whole reply came within `timeout`;
    /// cancelling the calling task fails it with `.cancelled` at once. The timeout belongs to this call
    /// alone: it is cancelled with the reply and can never fail a later command.
    public func version(timeout: Duration = .seconds(5)) async throws(PicoSessionError) -> PicoVersion {
        let receiver = self.receiver
        let result: Result<[String], PicoSessionError> = await exchange(
            "t\n",
            timeout: timeout,
            register: { waiter, token in
                receiver.claimIdle(.version(lines: [], waiter: PicoReceiver.ReplyWaiter(waiter, token: token)))
            },
            fail: { error, token in receiver.failVersion(error, token: token) }
        )
        return PicoVersion(lines: try result.get())
    }

    /// Asks the serial number (`i`), e.g. `ES4SN19000123`. Times out and cancels as `version()` does.
    public func serialNumber(timeout: Duration = .seconds(5)) async throws(PicoSessionError) -> String {
        let receiver = self.receiver
        let result: Result<String, PicoSessionError> = await exchange(
            "i\n",
            timeout: timeout,
            register: { waiter, token in
                receiver.claimIdle(.serialNumber(PicoReceiver.ReplyWaiter(waiter, token: token)))
            },
            fail: { error, token in receiver.failSerialNumber(error, token: token) }
        )
        return try result.get()
    }

    /// Packages a run queues ahead of its consumer by default (about 13 MB of typical packages): a
    /// minute of a Pico's fastest loop, so only a consumer that stalls for long loses any.
    public static let defaultBacklogLimit = 65_536

    /// Checks `text` (see `PicoScript`) and runs it.
    public func run(text: String, title: String = "script") async throws(PicoSessionError) -> PicoRun {
        let script: PicoScript
        do throws(PicoScriptError) { script = try PicoScript(text) } catch { throw .invalidScript(error) }
        return try await run(script, title: title)
    }

    /// Uploads `script` (`e`, its lines, the empty line) and returns the run's event stream. The stream
    /// ends after `.ended` (also after a device error or an abort) or throws
    /// `PicoSessionError.connectionLost` after every package received before the link went away.
    ///
    /// `backlogLimit`: the most packages queued ahead of a slow consumer (`defaultBacklogLimit`); past it packages are counted
    /// as overflowed instead (see `PicoEventStream`), since the link's reader never waits.
    public func run(
        _ script: PicoScript,
        title: String = "script",
        backlogLimit: Int = PicoSession.defaultBacklogLimit
    ) async throws(PicoSessionError) -> PicoRun {
        let (events, continuation) = AsyncThrowingStream<PicoEvent, any Error>.makeStream()
        let backlog = EventBacklog(limit: backlogLimit)
        let accepted: Result<Int, PicoSessionError> = receiver.mode.withLock { mode in
            switch mode {
            case .idle:
                let number = runCounter.withLock { counter in
                    counter += 1
                    return counter
                }
                mode = .run(
                    .init(
                        continuation: continuation,
                        device: name,
                        run: number,
                        lines: script.lines,
                        firstLineNumber: script.firstLineNumber,
                        names: script.namesByPackageLength,
                        backlog: backlog
                    )
                )
                return .success(number)
            case .closed(let reason): return .failure(.connectionLost(reason))
            case .run, .version, .serialNumber: return .failure(.busy("a run or command is in progress"))
            }
        }
        let number: Int
        switch accepted {
        case .success(let value): number = value
        case .failure(let error):
            continuation.finish()
            throw error
        }
        let info = RunInfo(device: name, run: number, title: title, startTime: Date().timeIntervalSince1970)
        do throws(PicoSessionError) {
            try await channel.send(script.bytes)
        } catch {
            receiver.failRun(error)
            throw error
        }
        return PicoRun(info: info, events: PicoEventStream(stream: events, backlog: backlog))
    }

    /// Aborts a running script per the resynchronisation procedure: `\n` (ends a partial command), then
    /// `Z\n`, then waits for the `Z` reply. Returns true when a script was running (its stream then ends
    /// with `.ended(aborted: true, …)`), false when the device was idle (`Z!0006`; this then waits 100 ms,
    /// as the device needs after a failed command).
    @discardableResult
    public func abort(timeout: Duration = .seconds(5)) async throws(PicoSessionError) -> Bool {
        let receiver = self.receiver
        receiver.markAborting()
        let result: Result<DeviceErrorCode?, PicoSessionError> = await exchange(
            "\nZ\n",
            timeout: timeout,
            register: { waiter, token in
                receiver.abortWaiter.withLock { slot in
                    if let reason = receiver.closeReason { return .connectionLost(reason) }
                    if Task.isCancelled { return .cancelled }
                    if slot != nil { return .busy("an abort is already waiting") }
                    slot = PicoReceiver.AbortWaiter(continuation: waiter, token: token)
                    return nil
                }
            },
            fail: { error, token in receiver.failAbort(error, token: token) }
        )
        switch result {
        case .success(nil): return true
        case .success(let code?) where code == .communicationModeInvalid:
            try? await clock.sleep(for: .milliseconds(100))
            return false
        case .success(let code?): throw .device(PicoDeviceError(code: code, line: nil, column: nil, lineText: nil))
        case .failure(let error): throw error
        }
    }

    /// Closes the channel.
    public func close() { channel.close() }

    /// One command and its reply: `register` installs the waiter under a fresh token (or refuses; it
    /// checks for cancellation under the lock `fail` takes, so a cancellation is seen there or by
    /// `fail`), then `command` is sent; the waiter fails through `fail` with `.timeout` once `timeout` has
    /// passed since the send began, or with
    /// `.cancelled` when the calling task is cancelled. The token makes each failure reach this call's
    /// waiter only, and the timer is cancelled with the reply.
    private func exchange<Reply: Sendable>(
        _ command: String,
        timeout: Duration,
        register: (CheckedContinuation<Result<Reply, PicoSessionError>, Never>, UInt64) -> PicoSessionError?,
        fail: @escaping @Sendable (PicoSessionError, UInt64) -> Void
    ) async -> Result<Reply, PicoSessionError> {
        let channel = self.channel
        let clock = self.clock
        let token = receiver.makeToken()
        var pending: Task<Void, Never>?
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<Reply, PicoSessionError>, Never>) in
                if let refused = register(waiter, token) {
                    waiter.resume(returning: .failure(refused))
                    return
                }
                // The timer runs from before the send: a send stuck behind a hung link (no credits, no
                // write response) times out like a missing reply.
                pending = Task {
                    await withDiscardingTaskGroup { group in
                        group.addTask {
                            guard (try? await clock.sleep(for: timeout)) != nil else { return }
                            let shown = command.trimmingCharacters(in: .newlines)
                            fail(.timeout("no reply to \(shown) within \(timeout)"), token)
                        }
                        do throws(PicoSessionError) {
                            try await channel.send(Array(command.utf8))
                        } catch {
                            fail(error, token)
                        }
                    }
                }
            }
        } onCancel: {
            fail(.cancelled, token)
        }
        pending?.cancel()
        return result
    }
}
