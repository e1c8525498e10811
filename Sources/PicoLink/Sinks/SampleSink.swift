/// Where decoded packages go: a file format, a plot, a rig's own store.
///
/// A sink is called in order, one call at a time: `begin`, then `write` per package (and `sync` as the
/// `SyncPolicy` says), then `finish` exactly once, also when the run was cut short
/// (`RunEnd.complete == false`), then `sync`. Sinks that write files must have handed each package to
/// the kernel before `write` returns, and flushed it to the device when `sync` returns.
public protocol SampleSink: AnyObject {
    /// A run starts: called once per run, before its first `write`. Throws when the output cannot be written.
    func begin(_ run: RunInfo) throws(SinkError)
    /// One package of the run, in the order received. Throws when the output cannot be written.
    func write(_ package: PicoPackage) throws(SinkError)
    /// The run ended, cut short or not (`end.complete`): called exactly once per run, after its last `write`.
    /// Throws when the output cannot be written.
    func finish(_ end: RunEnd) throws(SinkError)
    /// Makes everything written so far survive a power cut.
    func sync() throws(SinkError)
}

extension SampleSink {
    /// Sinks that keep nothing on disk have nothing to sync.
    public func sync() throws(SinkError) {}
}
