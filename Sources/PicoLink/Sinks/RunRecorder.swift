import Foundation
import Synchronization

/// Feeds one run's events to sinks: `begin`, `write` per package, `sync` as the `SyncPolicy` says, and
/// `finish` exactly once. A run that ends early — the link lost, `abort()`, a signal
/// (`RunInterruption`), a device error, a sink that cannot write — is finished with `complete: false`
/// and the reason; everything received before stays written.
///
/// The end marker says complete only when every package was written and synced: the sinks are synced
/// before they are finished, and again after. The first write or sync failure stops the recording at
/// once (the caller then aborts the device): the other sinks are finished with the reason, and the
/// failure is thrown. `abandon(_:)` finishes the sinks from another thread when the process must end
/// at once (a second signal).
public final class RunRecorder: @unchecked Sendable {
    /// The sinks, called in this order.
    public let sinks: [any SampleSink]
    /// Set from any thread (a signal handler's queue) before the abort it causes reaches the stream.
    public let interruption: RunInterruption
    /// When the sinks are synced while the run goes on; they are synced at its end whatever the policy.
    public let syncPolicy: SyncPolicy
    /// What the end says besides how the run ended, added before the sinks are told (a run's analysis:
    /// `analysis` and `overlays`); not called for an abandoned run, which must end at once.
    public let annotate: @Sendable (RunEnd) -> RunEnd

    /// Guards everything below and every call into a sink (what makes the unchecked conformance sound).
    private let lock = NSLock()
    /// The sinks that may hold the recording back (`PacedSink`).
    private let paced: [any PacedSink]
    private var packageCount = 0
    private var errors: [PicoDeviceError] = []
    private var ending: RunEnd?
    private var failure: SinkError?
    private var unsynced = false

    /// A recorder for one run into `sinks`; `interruption` is what a signal handler sets.
    public init(
        sinks: [any SampleSink],
        interruption: RunInterruption = RunInterruption(),
        syncPolicy: SyncPolicy = .default,
        annotate: @escaping @Sendable (RunEnd) -> RunEnd = { $0 }
    ) {
        self.sinks = sinks
        paced = sinks.compactMap { $0 as? any PacedSink }
        self.interruption = interruption
        self.syncPolicy = syncPolicy
        self.annotate = annotate
    }

    /// Packages received so far.
    public var packages: Int { lock.withLock { packageCount } }
    /// The device's errors during the run.
    public var deviceErrors: [PicoDeviceError] { lock.withLock { errors } }
    /// How the run ended, once the sinks were finished.
    public var end: RunEnd? { lock.withLock { ending } }

    /// Consumes `run.events` to its end (or until the calling task is cancelled, or a sink fails).
    /// `onEvent` sees every event first (for a live display). A run that did not end normally is made safe
    /// by `leaveSafe` before the sinks are told it ended (`RunControl.leaveSafe`: told whether the device
    /// ended its script; its `CellOutcome` goes into the end markers). Returns how the run ended, as the
    /// sinks were told; throws the first sink failure (the other sinks are still finished).
    public func record(
        _ run: PicoRun,
        onEvent: (PicoEvent) -> Void = { _ in },
        leaveSafe: (_ scriptEnded: Bool) async -> CellOutcome? = { _ in nil }
    ) async throws(SinkError) -> RunEnd {
        lock.withLock {
            for sink in sinks where failure == nil {
                do throws(SinkError) { try sink.begin(run.info) } catch { failure = error }
            }
        }
        let ticker = startSyncTicker()
        defer { ticker?.cancel() }
        var reason: String?
        var ended = false
        do {
            for try await event in run.events {
                onEvent(event)
                switch event {
                case .package(let package):
                    write(package)
                    if !paced.isEmpty { await pace() }
                case .deviceError(let error): lock.withLock { errors.append(error) }
                case .ended(let aborted, _):
                    ended = true
                    if aborted { reason = interruption.reason.map { "\($0); script aborted by Z" } ?? "aborted" }
                default: break
                }
                if lock.withLock({ failure != nil || ending != nil }) { break }
            }
        } catch {
            reason = interruption.reason ?? "\(error)"
        }
        if reason == nil, let first = deviceErrors.first { reason = first.description }
        if reason == nil, run.events.overflowed > 0 {
            reason = "\(run.events.overflowed) packages overflowed: the recording fell too far behind the device"
        }
        if reason == nil, !ended {
            reason = interruption.reason ?? (Task.isCancelled ? "cancelled" : "the run ended without its end line")
        }
        let failed = lock.withLock { failure != nil }
        let cell = reason != nil || failed ? await leaveSafe(ended) : nil
        return try finish(reason: reason, cell: cell)
    }

    /// Finishes the sinks now as incomplete with `reason`, unless they are finished already; safe to call
    /// from any thread while `record` runs (it then returns at its next event).
    ///
    /// For a process that must end at once: the end markers are handed to the kernel (which keeps them
    /// past the process's end) but not synced, since a sync on a busy disk can take seconds. Waits at
    /// most `patience` for a sink call in progress (a write blocked on a FIFO or a pipe whose reader
    /// stopped reading never returns, a periodic sync on a busy disk): the process must still end.
    public func abandon(_ reason: String, patience: Duration = .milliseconds(500)) {
        let seconds = patience.inSeconds
        guard lock.lock(before: Date().addingTimeInterval(seconds)) else { return }
        defer { lock.unlock() }
        guard ending == nil else { return }
        let end = RunEnd(
            complete: false,
            reason: reason,
            packages: packageCount,
            endTime: Date().timeIntervalSince1970,
            cell: .unknown("the program had to end at once, before the cell could be switched off")
        )
        ending = end
        for sink in sinks { try? sink.finish(end) }
    }

    /// Waits for the sinks that hold the recording back; a failure is kept as a write's is.
    private func pace() async {
        for sink in paced where lock.withLock({ failure == nil }) {
            do throws(SinkError) {
                try await sink.pace()
            } catch {
                lock.withLock { failure = failure ?? error }
            }
        }
    }

    private func write(_ package: PicoPackage) {
        lock.withLock {
            packageCount += 1
            guard failure == nil, ending == nil else { return }
            do throws(SinkError) {
                for sink in sinks { try sink.write(package) }
                if syncPolicy == .package {
                    for sink in sinks { try sink.sync() }
                } else {
                    unsynced = true
                }
            } catch {
                failure = error
            }
        }
    }

    /// Syncs every interval while packages come in (policy `.interval`).
    private func startSyncTicker() -> Task<Void, Never>? {
        guard case .interval(let interval) = syncPolicy else { return nil }
        return Task { [self] in
            while (try? await Task.sleep(for: interval)) != nil {
                lock.withLock {
                    guard unsynced, failure == nil, ending == nil else { return }
                    unsynced = false
                    do throws(SinkError) {
                        for sink in sinks { try sink.sync() }
                    } catch {
                        failure = error
                    }
                }
            }
        }
    }

    private func finish(reason: String?, cell: CellOutcome?) throws(SinkError) -> RunEnd {
        try lock.withLock { () -> Result<RunEnd, SinkError> in
            if let ending {  // abandoned meanwhile
                if let failure { return .failure(failure) }
                return .success(ending)
            }
            var reason = reason
            if failure == nil {
                do throws(SinkError) {
                    for sink in sinks { try sink.sync() }
                } catch {
                    failure = error
                }
            }
            if let failure { reason = Self.describe(failure) }
            let end = annotate(
                RunEnd(
                    complete: reason == nil,
                    reason: reason,
                    packages: packageCount,
                    endTime: Date().timeIntervalSince1970,
                    cell: cell
                )
            )
            ending = end
            for sink in sinks {
                do throws(SinkError) {
                    try sink.finish(end)
                    try sink.sync()
                } catch {
                    failure = failure ?? error
                }
            }
            if let failure { return .failure(failure) }
            return .success(end)
        }.get()
    }

    /// The end marker's reason for a sink failure.
    public static func describe(_ failure: SinkError) -> String {
        failure.isOutputClosed ? "output closed (\(failure.path))" : "could not write output: \(failure)"
    }
}

/// Why a run is being stopped from outside (a signal): set from any thread, read by `RunRecorder`,
/// which then records that reason instead of "aborted".
public final class RunInterruption: Sendable {
    private let value = Mutex<String?>(nil)

    /// An interruption with no reason yet.
    public init() {}

    /// Keeps the first reason given.
    public func interrupt(_ reason: String) { value.withLock { $0 = $0 ?? reason } }

    /// Adds a detail to the reason given (`interrupted (SIGTERM); the device did not end its script`).
    public func add(_ detail: String) { value.withLock { $0 = $0.map { "\($0); \(detail)" } ?? detail } }

    /// The first reason given with the details added since; nil while none was given.
    public var reason: String? { value.withLock { $0 } }
}
