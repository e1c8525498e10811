/// A sink that may hold the recording back: after each package it was given, the recorder waits for
/// `pace()` before it takes the next event, so a store that falls behind (the rig's journal, whose
/// queue of uncommitted packages is bounded) slows the recording down instead of growing without
/// bound. The packages the device sends meanwhile wait in the run's event buffer.
public protocol PacedSink: SampleSink {
    /// Returns once the sink can take the next package; throws when the sink failed meanwhile.
    func pace() async throws(SinkError)
}
