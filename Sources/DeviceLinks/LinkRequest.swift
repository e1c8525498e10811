public import BLEHost
public import Logging

/// The link a program asked for: its device and how to reach it, opened through `LinkOpener`, which
/// reports to `logger`.
public struct LinkRequest: Sendable {
    /// The device.
    public let target: DeviceTarget
    /// How to reach it: timeout, capture, security, the simulator's settings.
    public var options: LinkOpener.Options
    /// Where the opening reports (a program's standard error, a rig's log).
    public let logger: Logger

    /// A request for `target`, opened with `options`, its reports on `logger`. A simulator given no
    /// noise seed gets a fresh one here, so that its run's provenance can name it and the run can be
    /// repeated exactly.
    public init(target: DeviceTarget, options: LinkOpener.Options, logger: Logger) {
        var options = options
        if target.isSimulator, options.simulator.seed == nil {
            options.simulator.seed = UInt64.random(in: 1...UInt64(Int64.max))
        }
        self.target = target
        self.options = options
        self.logger = logger
    }

    /// `--security` and its companions (nil: the link is used as it comes).
    public var security: SecurityRequest? { options.security }
    /// The simulated Pico's noise seed, given or chosen (nil: not a simulator).
    public var simulatorSeed: UInt64? { target.isSimulator ? options.simulator.seed : nil }

    private var opener: LinkOpener { LinkOpener(logger: logger) }

    /// Opens the link: connected, MTU exchanged (offering `mtu`), ready for discovery.
    public func open(mtu: Int = ATTBearer.maximumMTU) async throws(LinkOpenError) -> DeviceLink {
        var options = options
        options.mtu = mtu
        return try await opener.open(target, options: options)
    }

    /// Opens the link and the EmStat Pico session on it (the VSP service found and subscribed); a
    /// refusal for want of security says which `--security` would do.
    public func openPico() async throws(LinkOpenError) -> OpenedPico {
        do {
            return try await opener.openPico(target, options: options)
        } catch {
            guard case .session(let session) = error.cause else { throw error }
            let hint = SecurityHint.suffix(for: session, mode: security?.mode)
            throw LinkOpenError(error.description + hint, cause: error.cause)
        }
    }
}
