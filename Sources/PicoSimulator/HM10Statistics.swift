/// Counters of a simulated HM-10.
public struct HM10Statistics: Sendable, Equatable {
    /// Bytes written by the host and taken into the FIFO.
    public var receivedBytes = 0
    /// Bytes lost because the FIFO was full (write commands only).
    public var droppedBytes = 0
    /// Write Requests and Write Commands received.
    public var writeRequests = 0
    public var writeCommands = 0
    /// The longest value written.
    public var largestWrite = 0
    /// Bytes notified back and notifications sent.
    public var notifiedBytes = 0
    public var notifications = 0
}
