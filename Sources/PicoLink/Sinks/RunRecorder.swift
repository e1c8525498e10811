import Synchronization

/// Feeds one run's events to sinks: `begin`, `write` per package (each sink makes it durable before the
/// next package), and `finish` exactly once. A run that ends early — the link lost, `abort()`, Ctrl-C
/// (`RunInterruption`), a device error — is finished with `complete: false` and the reason; everything
/// received before stays written.
public final class RunRecorder {
    public let sinks: [any SampleSink]
    /// Set from any thread (a signal handler's queue) before the abort it causes reaches the stream.
    public let interruption: RunInterruption

    public private(set) var packages = 0
    public private(set) var deviceErrors: [PicoDeviceError] = []
    public private(set) var end: RunEnd?

    public init(sinks: [any SampleSink], interruption: RunInterruption = RunInterruption()) {
        self.sinks = sinks
        self.interruption = interruption
    }

    /// Consumes `run.events` to its end. `onEvent` sees every event first (for a live display).
    /// Returns how the run ended, as the sinks were told; throws the first sink failure (the other sinks
    /// are still finished).
    public func record(
        _ run: PicoRun,
        onEvent: (PicoEvent) -> Void = { _ in }
    ) async throws(SinkError) -> RunEnd {
        var failure: SinkError?
        for sink in sinks {
            do throws(SinkError) { try sink.begin(run.info) } catch { failure = failure ?? error }
        }
        var reason: String?
        var ended = false
        do {
            for try await event in run.events {
                onEvent(event)
                switch event {
                case .package(let package):
                    packages += 1
                    guard failure == nil else { continue }
                    for sink in sinks {
                        do throws(SinkError) { try sink.write(package) } catch { failure = failure ?? error }
                    }
                case .deviceError(let error):
                    deviceErrors.append(error)
                case .ended(let aborted, _):
                    ended = true
                    if aborted { reason = interruption.reason ?? "aborted" }
                default:
                    break
                }
            }
        } catch {
            reason = "\(error)"
        }
        if reason == nil, let first = deviceErrors.first { reason = first.description }
        if reason == nil, !ended { reason = interruption.reason ?? "the run ended without its end line" }
        let end = RunEnd(complete: reason == nil, reason: reason, packages: packages)
        self.end = end
        for sink in sinks {
            do throws(SinkError) { try sink.finish(end) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
        return end
    }
}

/// Why a run is being stopped from outside (Ctrl-C): set from any thread, read by `RunRecorder`, which
/// then records that reason instead of "aborted".
public final class RunInterruption: Sendable {
    private let value = Mutex<String?>(nil)

    public init() {}

    /// Keeps the first reason given.
    public func interrupt(_ reason: String) { value.withLock { $0 = $0 ?? reason } }

    public var reason: String? { value.withLock { $0 } }
}
