/// A started run: what sinks are told, and its events.
public struct PicoRun: Sendable {
    public let info: RunInfo
    public let events: PicoEventStream
}
