public import Coordination
import Logging
import Synchronization

/// Adapter recovery for the kernel path: watches the adapters the rig's devices use (every
/// `policy.checkInterval`, through `AdapterControl`), follows one by its address when the kernel
/// gives it another name, brings it back up when it goes down, and resets it (down and up) when
/// connects on it keep failing while no link is open on it — the one situation the rig owns alone.
/// Each kind of attempt has its own cooldown per adapter, doubling while attempts fail. Every step is
/// logged and counted in `reports`.
public final class AdapterKeeper: Sendable {
    public struct Policy: Sendable {
        public var checkInterval: Double = 1
        /// Wait before bringing a down adapter up again after a failed try: from the first to the last.
        public var bringUpCooldown: ClosedRange<Double> = 5...300
        /// Failed connects (with no link open on the adapter) before a reset.
        public var resetAfterFailedConnects = 3
        /// Least time between resets of one adapter: from the first, doubling while connects keep
        /// failing, to the last.
        public var resetCooldown: ClosedRange<Double> = 60...3600

        public init() {}
    }

    private let control: any AdapterControl
    private let clock: any TimeSource
    private let logger: Logger
    public let policy: Policy
    private let state = Mutex<[String: Watched]>([:])
    /// Whether the last listing failed (logged once until it works again).
    private let listingFailed = Atomic<Bool>(false)

    struct Watched {
        var report: AdapterReport
        var nextBringUp = 0.0
        var bringUpDelay: Double
        var nextReset = 0.0
        var resetDelay: Double
    }

    public init(control: any AdapterControl, clock: any TimeSource, logger: Logger, policy: Policy = Policy()) {
        self.control = control
        self.clock = clock
        self.logger = logger
        self.policy = policy
    }

    /// Starts watching `configured` (`hci0`, or nil for the first adapter that is up); idempotent.
    public func watch(_ configured: String?) {
        state.withLock { watched in
            let key = Self.key(configured)
            guard watched[key] == nil else { return }
            watched[key] = Watched(
                report: AdapterReport(configured: configured),
                bringUpDelay: policy.bringUpCooldown.lowerBound,
                resetDelay: policy.resetCooldown.lowerBound
            )
        }
    }

    /// The kernel's name now for the adapter configured as `configured`: it differs when the adapter
    /// came back under another index; nil while the first-up adapter has not been seen.
    public func currentName(_ configured: String?) -> String? {
        state.withLock { $0[Self.key(configured)]?.report.name } ?? configured
    }

    public func linkOpened(_ configured: String?) {
        update(configured) { watched in
            watched.report.openLinks += 1
            watched.report.failedConnects = 0
            watched.resetDelay = policy.resetCooldown.lowerBound
        }
    }

    public func linkClosed(_ configured: String?) {
        update(configured) { $0.report.openLinks = max(0, $0.report.openLinks - 1) }
    }

    public func connectFailed(_ configured: String?) {
        update(configured) { $0.report.failedConnects += 1 }
    }

    /// Every watched adapter, in configured-name order.
    public var reports: [AdapterReport] {
        state.withLock { watched in watched.keys.sorted().compactMap { watched[$0]?.report } }
    }

    /// Checks every `policy.checkInterval` until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            check()
            do {
                try await clock.sleep(for: .seconds(policy.checkInterval))
            } catch {
                return
            }
        }
    }

    /// One pass: lists the adapters, updates each watched one, and acts where the policy says.
    public func check() {
        let keys = state.withLock { Array($0.keys).sorted() }
        guard !keys.isEmpty else { return }
        let adapters: [AdapterStatus]
        do {
            adapters = try control.adapters()
            if listingFailed.exchange(false, ordering: .relaxed) { logger.notice("adapters: listing works again") }
        } catch {
            if !listingFailed.exchange(true, ordering: .relaxed) {
                logger.error("adapters: cannot list them: \(error)")
            }
            return
        }
        for key in keys { check(key, adapters) }
    }

    private enum Action {
        case bringUp(String)
        case reset(String, failures: Int)
    }

    /// Updates what is known of one adapter, then acts outside the lock (an `HCIDEVUP` takes as long as
    /// the controller's initialisation) and records the outcome.
    private func check(_ key: String, _ adapters: [AdapterStatus]) {
        let now = clock.wallTime
        let action = state.withLock { all -> Action? in
            guard var watched = all[key] else { return nil }
            defer { all[key] = watched }
            return observe(&watched, adapters, now: now)
        }
        switch action {
        case nil: return
        case .bringUp(let name):
            let outcome = Result { try control.bringUp(name) }
            update(key: key) { watched in
                switch outcome {
                case .success:
                    watched.report.bringUps += 1
                    logger.notice("adapter \(name): brought up")
                case .failure(let error):
                    watched.report.bringUpFailures += 1
                    watched.nextBringUp = now + watched.bringUpDelay
                    logger.error(
                        "adapter \(name): cannot bring it up (\(error)); next try in \(Int(watched.bringUpDelay)) s"
                    )
                    watched.bringUpDelay = min(watched.bringUpDelay * 2, policy.bringUpCooldown.upperBound)
                }
            }
        case .reset(let name, let failures):
            let outcome = Result { try control.reset(name) }
            update(key: key) { watched in
                switch outcome {
                case .success:
                    watched.report.resets += 1
                    logger.notice(
                        "adapter \(name): reset (down and up) after \(failures) failed connects with no link open"
                    )
                case .failure(let error):
                    watched.report.resetFailures += 1
                    logger.error("adapter \(name): reset failed (\(error))")
                }
            }
        }
    }

    /// Takes in the listing for one adapter and says what to do, if anything.
    private func observe(_ watched: inout Watched, _ adapters: [AdapterStatus], now: Double) -> Action? {
        if watched.report.address == nil {
            let candidate =
                watched.report.configured.map { name in adapters.first { $0.name == name } }
                ?? adapters.first(where: \.isUp)
            if let candidate, candidate.hasAddress {
                watched.report.address = candidate.address
                watched.report.name = candidate.name
            }
        }
        guard let address = watched.report.address else { return nil }
        guard let found = adapters.first(where: { $0.address == address }) else {
            if watched.report.state != .missing {
                logger.warning(
                    "adapter \(watched.report.name ?? "?") (\(address)) is gone from the kernel's list; waiting for it"
                )
                watched.report.disappearances += 1
                watched.report.state = .missing
            }
            return nil
        }
        if let name = watched.report.name, name != found.name {
            logger.notice("adapter \(name) (\(address)) is back as \(found.name)")
            watched.report.renames += 1
        }
        watched.report.name = found.name
        guard found.isUp else {
            if watched.report.state != .down {
                logger.warning("adapter \(found.name) (\(address)) is down")
                watched.report.downs += 1
                watched.report.state = .down
            }
            return now >= watched.nextBringUp ? .bringUp(found.name) : nil
        }
        if watched.report.state == .down || watched.report.state == .missing {
            logger.notice("adapter \(found.name) is up again")
        }
        watched.report.state = .up
        watched.bringUpDelay = policy.bringUpCooldown.lowerBound
        let failures = watched.report.failedConnects
        guard watched.report.openLinks == 0, failures >= policy.resetAfterFailedConnects, now >= watched.nextReset
        else { return nil }
        watched.nextReset = now + watched.resetDelay
        watched.resetDelay = min(watched.resetDelay * 2, policy.resetCooldown.upperBound)
        watched.report.failedConnects = 0
        return .reset(found.name, failures: failures)
    }

    private func update(_ configured: String?, _ body: (inout Watched) -> Void) {
        update(key: Self.key(configured), body)
    }

    private func update(key: String, _ body: (inout Watched) -> Void) {
        state.withLock { watched in
            guard var entry = watched[key] else { return }
            body(&entry)
            watched[key] = entry
        }
    }

    private static func key(_ configured: String?) -> String { configured ?? "" }
}
