public import RigJournal
public import RigModel

/// What the status page, `/metrics` and `/healthz` read: the rig's devices, its journal and writer,
/// and the forwarder when one runs. All read-only: nothing here can start or stop a measurement.
public struct StatusSources: Sendable {
    public var rig: String
    public var version: String
    public var journal: Journal
    public var writer: JournalWriter
    public var devices: @Sendable () -> [DeviceSnapshot]
    /// The forwarder's state (nil: no forwarder configured).
    public var forward: @Sendable () -> ForwardSummary?
    /// Log lines the process dropped because its log output would not take them (closed, full, or a
    /// pipe nobody reads).
    public var droppedLogLines: @Sendable () -> Int

    public init(
        rig: String,
        version: String,
        journal: Journal,
        writer: JournalWriter,
        devices: @escaping @Sendable () -> [DeviceSnapshot],
        forward: @escaping @Sendable () -> ForwardSummary? = { nil },
        droppedLogLines: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.rig = rig
        self.version = version
        self.journal = journal
        self.writer = writer
        self.devices = devices
        self.forward = forward
        self.droppedLogLines = droppedLogLines
    }
}

/// The forwarder as the page and the metrics show it (the forwarder's own module is not imported
/// here: the status side stays free of PostgreSQL).
public struct ForwardSummary: Sendable, Equatable {
    public var target: String
    /// `starting`, `forwarding`, `idle` or `waiting`.
    public var state: String
    public var forwardedPackages: Int
    public var lagPackages: Int
    public var lagSeconds: Double
    public var errors: Int
    public var lastError: String?

    public init(
        target: String,
        state: String,
        forwardedPackages: Int,
        lagPackages: Int,
        lagSeconds: Double,
        errors: Int,
        lastError: String?
    ) {
        self.target = target
        self.state = state
        self.forwardedPackages = forwardedPackages
        self.lagPackages = lagPackages
        self.lagSeconds = lagSeconds
        self.errors = errors
        self.lastError = lastError
    }
}
