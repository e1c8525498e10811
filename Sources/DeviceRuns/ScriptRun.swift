public import Coordination
public import DeviceLinks
import Foundation
import Logging
public import PicoAnalysis
public import PicoLink
public import RunResults

/// One script run on one device from start to end, as `hcipico connect` runs it: open the link and the
/// Pico session, ask the version, upload the script, record the run into its outputs under the run's
/// limits, analyse it as it ends, leave the device safe and close the link.
///
/// Runs inside `Shutdown.run`: a stop before the run cancels whatever is in flight, and a stop during
/// the run aborts it with `Z` and waits a bounded time for the device to end its script. What happens
/// is said to `logger`; the live view goes to the `RunDisplay`; the result is a `ScriptRunOutcome`.
public struct ScriptRun: Sendable {
    /// The device and how to reach it; its logger hears what the run says.
    public let link: LinkRequest
    /// The link's tuning and statistics.
    public let tuning: LinkTuningPlan
    /// The script run.
    public let script: PicoScript
    /// The run's title in its outputs.
    public let title: String
    /// The files it is recorded into (checked already).
    public let outputs: RunOutputs
    /// How the run is analysed as it ends (nil: not at all).
    public let analysis: AnalysisSettings?
    /// Whether to say where the time to the first sample went (`--timing`).
    public let timing: Bool
    /// The limits a package may not pass (the run is stopped at one).
    public let limits: RunLimits
    /// The program and its version, for the provenance (`hcipico 0.9.0`).
    public let toolVersion: String
    /// The program's stop path: a stop aborts the run.
    public let stop: Shutdown

    /// How long a stopped run waits for the reply to `Z`, and then for the device to end its script
    /// (`RunControl`: the link is closed when either passes).
    public static let abortReplyTimeout: Duration = .seconds(2)
    /// How long the device then has to end its script.
    public static let endAfterAbortTimeout: Duration = .seconds(2)

    /// A run of `script` on the device `link` names.
    public init(
        link: LinkRequest,
        tuning: LinkTuningPlan,
        script: PicoScript,
        title: String,
        outputs: RunOutputs,
        analysis: AnalysisSettings?,
        timing: Bool,
        limits: RunLimits,
        toolVersion: String,
        stop: Shutdown
    ) {
        self.link = link
        self.tuning = tuning
        self.script = script
        self.title = title
        self.outputs = outputs
        self.analysis = analysis
        self.timing = timing
        self.limits = limits
        self.toolVersion = toolVersion
        self.stop = stop
    }

    private var logger: Logger { link.logger }

    /// Runs it from open to close, showing it on `display`; returns how it ended.
    public func perform(display: some RunDisplay) async -> ScriptRunOutcome {
        var clock = ConnectTiming()
        var link = self.link
        if let path = outputs.raw {
            do {
                link.options.capture = try RawCapture(path: path, overwrite: outputs.overwrite)
            } catch {
                return failed("\(error)", error.errno == EEXIST ? .outputExists : .writeFailed)
            }
        }
        let opened: OpenedPico
        do {
            opened = try await link.openPico()
        } catch {
            try? link.options.capture?.finish()
            return failed(error.description, .linkFailed(error))
        }
        clock.linkOpened()
        let statistics = opened.link.flatMap { tuning.apply(to: $0) }
        var outcome = await measure(link: opened, display: display, timing: &clock, tuning: statistics)
        if timing { logger.notice("\(clock.summary)") }
        if let bluetooth = opened.link { await statistics?.finish(bluetooth, logger: logger) }
        await opened.close()
        do throws(SinkError) {
            try link.options.capture?.finish()
        } catch {
            logger.notice("--raw: \(error)")
            if case .complete = outcome { outcome = error.isOutputClosed ? .outputClosed : .writeFailed }
        }
        return outcome
    }

    /// The outcome of a failure, said, unless a stop caused it: then the stop's.
    private func failed(_ message: String, _ outcome: ScriptRunOutcome) -> ScriptRunOutcome {
        if let reason = stop.reason {
            logger.notice("\(reason) before the run started")
            return .stopped(reason)
        }
        logger.notice("\(message)")
        return outcome
    }

    private func measure(
        link opened: OpenedPico,
        display: some RunDisplay,
        timing: inout ConnectTiming,
        tuning: LinkRunStatistics?
    ) async -> ScriptRunOutcome {
        let session = opened.session
        let taken: TakenOverPico
        do {
            // The serial number (`i`) is for the outputs' provenance: asked only when there are outputs.
            taken = try await opened.takeOver(
                askingSerial: !outputs.named.isEmpty,
                security: link.security?.mode,
                logger: logger
            )
        } catch {
            return failed(error.description, .sessionFailed(error.error))
        }
        let (version, leftover, serial) = (taken.version, taken.leftover, taken.serial)
        display.banner(version)
        let run: PicoRun
        do {
            run = try await session.run(script, title: title)
        } catch {
            if case .cancelled = error { await leaveSafe(session, scriptEnded: false) }
            return failed("\(error)", .sessionFailed(error))
        }
        let sinks: [any SampleSink]
        do {
            let provenance = RunProvenance(
                runOn: opened,
                target: link.target,
                version: version,
                serial: serial,
                title: title,
                script: script,
                linkNote: (self.tuning.request.map { ", \($0.name) applied beside the run" } ?? "")
                    + (link.simulatorSeed.map { ", simulator noise seed \($0) (--seed \($0) repeats the run)" } ?? ""),
                foundAtConnect: leftover,
                toolVersion: toolVersion
            )
            sinks = try outputs.open(provenance: provenance)
        } catch {
            await leaveSafe(session, scriptEnded: false)
            logger.notice("\(error); the run was aborted")
            return error.errno == EEXIST ? .outputExists : .writeFailed
        }
        // The run's peaks or circuit fit, made as it ends, go into the end every output gets.
        let recording = ControlledRecording(
            control: RunControl(
                session: session,
                abortReplyLimit: Self.abortReplyTimeout,
                endLimit: Self.endAfterAbortTimeout,
                limits: limits
            ),
            script: script,
            sinks: sinks,
            analysis: analysis,
            syncPolicy: outputs.sync
        )
        let (recorder, control) = (recording.recorder, recording.control)
        stop.onUrgentExit { why in recorder.abandon(why) }
        stop.onStop { reason in Task { await control.stop(reason.description) } }
        var recorded: Result<RunEnd, SinkError>
        do {
            recorded = .success(
                try await recording.record(run) { event in
                    timing.observe(event)
                    // The link is tuned once the data flows: the first sample never waits on it.
                    if case .package = event { tuning?.startTuning() }
                    display.show(event)
                }
            )
        } catch {
            recorded = .failure(error)
        }
        stop.onStop(nil)
        display.finish()
        if case .success = recorded, let analysis = recording.analysis {
            if let results = analysis.results { display.report(results) }
            if let base = outputs.results {
                do throws(SinkError) {
                    try AnalysisFiles(base: base, overwrite: outputs.overwrite)
                        .write(analysis, deviceRun: 1, device: version.device)
                } catch {
                    recorded = .failure(error)
                }
            }
        }
        // The output that failed is not reported as written: its end marker may be missing.
        let failedPath: String? = if case .failure(let failure) = recorded { failure.path } else { nil }
        let written = outputs.named.map(\.path).filter { $0 != "-" && $0 != failedPath }
        if !written.isEmpty { logger.notice("wrote \(written.joined(separator: ", "))") }
        if let cell = recorder.end?.cell { logger.notice("\(cell.description)") }
        switch recorded {
        case .failure(let failure):
            logger.notice("\(RunRecorder.describe(failure)); the run was aborted")
            return failure.isOutputClosed ? .outputClosed : .writeFailed
        case .success(let end):
            if end.complete {
                // The script ended before the stop for a limit could: every package is there, the
                // limit was passed all the same.
                guard let breach = control.limitBreach else { return .complete }
                logger.notice("the run ended before it could be stopped, but a package passed its \(breach)")
                return .limitPassed
            }
            // A device error was shown as it came (the display); the end does not repeat it.
            let shown = end.reason != nil && end.reason == recorder.deviceErrors.first?.description
            let why = shown ? "the device's error above" : end.reason ?? "cut short"
            logger.notice("run incomplete after \(end.packages) packages: \(why)")
            if let reason = stop.reason { return .stopped(reason) }
            if control.limitPassed { return .limitPassed }
            if !recorder.deviceErrors.isEmpty { return .deviceError }
            return session.isConnected ? .deviceError : .connectionLost
        }
    }

    /// Aborts whatever the device may be running and switches the cell off, bounded, whatever happens to
    /// the calling task; says what became of the cell.
    private func leaveSafe(_ session: PicoSession, scriptEnded: Bool) async {
        guard session.isConnected else { return }
        let control = RunControl(
            session: session,
            abortReplyLimit: Self.abortReplyTimeout,
            endLimit: Self.endAfterAbortTimeout
        )
        let cell = await Task { await control.leaveSafe(scriptEnded: scriptEnded) }.value
        logger.notice("\(cell.description)")
    }
}
