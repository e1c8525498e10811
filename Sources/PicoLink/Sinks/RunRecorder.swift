import Synchronization

/// Feeds one run's events to sinks: `begin`, `write` per package (each sink makes it durable before the
/// next package), and `finish` exactly once. A run that ends early — the link lost, `abort()`, Ctrl-C
/// (`interrupt(_:)`), a device error — is finished with `complete: false` and the reason; everything
/// received before stays written.
public final class RunRecorder {
    public let sinks: [any SampleSink]
    /// Set from any thread (a signal handler's queue) before the abort it causes reaches the stream.
    private let interruption = Mutex<String?>(nil)

    public private(set) var packages = 0
    public private(set) var deviceErrors: [PicoDeviceError] = []
    public private(set) var end: RunEnd?

    public init(sinks: [any SampleSink]) { self.sinks = sinks }

    /// Names why the run is being stopped (e.g. "interrupted (Ctrl-C)"); used instead of "aborted".
    public func interrupt(_ reason: String) { interruption.withLock { $0 = $0 ?? reason } }

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
                    if aborted { reason = interruption.withLock { $0 } ?? "aborted" }
                default:
                    break
                }
            }
        } catch {
            reason = "\(error)"
        }
        if reason == nil, let first = deviceErrors.first { reason = first.description }
        if reason == nil, !ended { reason = interruption.withLock { $0 } ?? "the run ended without its end line" }
        let end = RunEnd(complete: reason == nil, reason: reason, packages: packages)
        self.end = end
        for sink in sinks {
            do throws(SinkError) { try sink.finish(end) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
        return end
    }
}
