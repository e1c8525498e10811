public import PicoAnalysis
public import PicoLink

/// One run recorded into sinks under a `RunControl`, as `connect` and the console record a run: every
/// package checked against the run's limits (a package past one stops the run with `Z`), a run that did
/// not end normally left safe (the cell off, said in the end markers), and the run analysed as it ends
/// (its peaks or circuit fit in the end every sink gets).
public struct ControlledRecording: Sendable {
    /// What stops the run (a signal, a limit) and leaves the device safe.
    public let control: RunControl
    /// The recorder: what it saw (the device's errors, the end) and its urgent `abandon`.
    public let recorder: RunRecorder
    private let analysing: AnalysingSink

    /// A recording of a run of `script` under `control` into `sinks`, analysed with `analysis` (nil: not
    /// analysed), synced as `syncPolicy` says.
    public init(
        control: RunControl,
        script: PicoScript,
        sinks: [any SampleSink],
        analysis: AnalysisSettings?,
        syncPolicy: SyncPolicy = .default
    ) {
        let analysing = AnalysingSink(script: script.lines.joined(separator: "\n"), settings: analysis)
        self.control = control
        self.analysing = analysing
        recorder = RunRecorder(
            sinks: sinks + [analysing],
            interruption: control.interruption,
            syncPolicy: syncPolicy,
            annotate: { analysing.annotate($0) }
        )
    }

    /// The run's analysis once it has ended (nil before, or when it is not analysed).
    public var analysis: StoredAnalysis? { analysing.analysis }

    /// Records `run` to its end, the run's limits enforced beside it; `onEvent` sees every event first
    /// (a live display). Returns how the run ended, as the sinks were told; throws the first sink's
    /// failure (the others are still finished).
    public func record(_ run: PicoRun, onEvent: (PicoEvent) -> Void = { _ in }) async throws(SinkError) -> RunEnd {
        async let enforcing: Void = control.enforce()
        let recorded: Result<RunEnd, SinkError>
        do {
            recorded = .success(
                try await recorder.record(run) { event in
                    if case .package(let package) = event { control.check(package) }
                    onEvent(event)
                } leaveSafe: { scriptEnded in
                    await control.leaveSafe(scriptEnded: scriptEnded)
                }
            )
        } catch {
            recorded = .failure(error)
        }
        control.runEnded()
        await enforcing
        return try recorded.get()
    }
}
