/// A started run: what sinks are told, and its events.
public struct PicoRun: Sendable {
    /// What the run's sinks are told at `begin`: device, run number, title, start time.
    public let info: RunInfo
    /// The run's events, in the order the device sent them.
    public let events: PicoEventStream
}
