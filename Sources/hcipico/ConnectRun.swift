import Coordination
import DeviceLinks
import Foundation
import PicoAnalysis
import PicoLink
import RunResults

/// The work of one `hcipico connect`: open the link and the Pico session, ask the version, upload the
/// script, record the run into the sinks, leave the device safe and close the link. Runs inside
/// `Shutdown.run`, so a stop before the run cancels whatever is in flight, and a stop during the run
/// aborts it with `Z` and waits a bounded time for the device to end its script.
struct ConnectRun: Sendable {
    let link: LinkRequest
    let tuning: LinkTuningPlan
    let script: PicoScript
    let title: String
    let outputs: RunOutputs
    let quiet: Bool
    /// How the run is analysed as it ends (nil: not at all).
    let analysis: AnalysisSettings?
    let timing: Bool
    let limits: RunLimits
    let shutdown: Shutdown

    /// How long a stopped run waits for the reply to `Z`, and then for the device to end its script
    /// (`RunControl`: the link is closed when either passes).
    static let abortReplyTimeout: Duration = .seconds(2)
    static let endAfterAbortTimeout: Duration = .seconds(2)

    func perform() async -> ExitStatus {
        var clock = ConnectTiming()
        var link = self.link
        if let path = outputs.raw {
            do {
                link.options.capture = try RawCapture(path: path, overwrite: outputs.overwrite)
            } catch {
                return failed("\(error)", error.errno == EEXIST ? .badInput : .writeFailed)
            }
        }
        let opened: OpenedPico
        do {
            opened = try await link.openPico()
        } catch {
            try? link.options.capture?.finish()
            return failed(error.description, error.exitStatus)
        }
        clock.linkOpened()
        let statistics = opened.link.flatMap { tuning.apply(to: $0) }
        var status = await measure(on: opened.session, link: opened, timing: &clock, tuning: statistics)
        if timing { StandardError.report(clock.summary) }
        if let bluetooth = opened.link { await statistics?.finish(bluetooth) }
        await opened.close()
        do throws(SinkError) {
            try link.options.capture?.finish()
        } catch {
            StandardError.report("--raw: \(error)")
            if status == .success { status = error.isOutputClosed ? .outputClosed : .writeFailed }
        }
        return status
    }

    /// The status for a failure, unless a stop caused it: then the stop's.
    private func failed(_ message: String, _ status: ExitStatus) -> ExitStatus {
        if let reason = shutdown.reason {
            StandardError.report("\(reason) before the run started")
            return reason.exitStatus
        }
        StandardError.report(message)
        return status
    }

    private func measure(
        on session: PicoSession,
        link opened: OpenedPico,
        timing: inout ConnectTiming,
        tuning: LinkRunStatistics?
    ) async -> ExitStatus {
        let version: PicoVersion
        let leftover: LeftoverScript?
        do {
            (version, leftover) = try await session.takeOver()
        } catch {
            return failed(
                "no version reply: \(error)\(SecurityHint.suffix(for: error, mode: link.security?.mode))",
                error.exitStatus
            )
        }
        // The serial number (`i`) for the outputs' provenance, only when there are outputs; a device that
        // does not answer within a second has none.
        let serial = outputs.named.isEmpty ? nil : try? await session.serialNumber(timeout: .seconds(1))
        let dataOnStandardOutput = outputs.usesStandardOutput
        if let leftover { StandardError.report(leftover.description) }
        let banner = "\(version.device) \(version.firmware)"
        if dataOnStandardOutput {
            var stream = StandardError()
            print(banner, to: &stream)
        } else {
            print(banner)
            fflush(nil)
        }
        let run: PicoRun
        do {
            run = try await session.run(script, title: title)
        } catch {
            if case .cancelled = error { await leaveSafe(session, scriptEnded: false) }
            return failed("\(error)", error.exitStatus)
        }
        let sinks: [any SampleSink]
        do {
            let provenance = CommandProvenance.make(
                target: link.target,
                link: opened,
                version: version,
                serial: serial,
                title: title,
                script: script,
                linkNote: (self.tuning.request.map { ", \($0.name) applied beside the run" } ?? "")
                    + (link.simulatorSeed.map { ", simulator noise seed \($0) (--seed \($0) repeats the run)" } ?? ""),
                foundAtConnect: leftover
            )
            sinks = try outputs.open(provenance: provenance)
        } catch {
            await leaveSafe(session, scriptEnded: false)
            StandardError.report("\(error); the run was aborted")
            return error.errno == EEXIST ? .badInput : .writeFailed
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
        shutdown.onUrgentExit { why in recorder.abandon(why) }
        shutdown.onStop { reason in Task { await control.stop(reason.description) } }
        let display = LiveDisplay(
            showTable: !quiet,
            tableOnStandardError: dataOnStandardOutput,
            expectedPoints: ScriptExtent.expectedPoints(script.lines)
        )
        var outcome: Result<RunEnd, SinkError>
        do {
            outcome = .success(
                try await recording.record(run) { event in
                    timing.observe(event)
                    // The link is tuned once the data flows: the first sample never waits on it.
                    if case .package = event { tuning?.startTuning() }
                    display.show(event)
                }
            )
        } catch {
            outcome = .failure(error)
        }
        shutdown.onStop(nil)
        display.finish()
        if case .success = outcome, let analysis = recording.analysis {
            report(analysis, onStandardError: dataOnStandardOutput, device: version.device)
            if let base = outputs.results {
                do throws(SinkError) {
                    try AnalysisFiles(base: base, overwrite: outputs.overwrite)
                        .write(analysis, deviceRun: 1, device: version.device)
                } catch {
                    outcome = .failure(error)
                }
            }
        }
        // The output that failed is not reported as written: its end marker may be missing.
        let failedPath: String? = if case .failure(let failure) = outcome { failure.path } else { nil }
        let written = outputs.named.map(\.path).filter { $0 != "-" && $0 != failedPath }
        if !written.isEmpty { StandardError.report("wrote \(written.joined(separator: ", "))") }
        if let cell = recorder.end?.cell { StandardError.report(cell.description) }
        switch outcome {
        case .failure(let failure):
            StandardError.report("\(RunRecorder.describe(failure)); the run was aborted")
            return failure.isOutputClosed ? .outputClosed : .writeFailed
        case .success(let end):
            if end.complete { return .success }
            // A device error was shown as it came (LiveDisplay); the end does not repeat it.
            let shown = end.reason != nil && end.reason == recorder.deviceErrors.first?.description
            let why = shown ? "the device's error above" : end.reason ?? "cut short"
            StandardError.report("run incomplete after \(end.packages) packages: \(why)")
            if let reason = shutdown.reason { return reason.exitStatus }
            if control.limitPassed { return .limitPassed }
            if !recorder.deviceErrors.isEmpty { return .deviceError }
            return session.isConnected ? .deviceError : .connectionLost
        }
    }

    /// The run's peaks or fit as tables (not with --quiet): on standard output, or on standard error when
    /// the data goes to standard output.
    private func report(_ analysis: StoredAnalysis, onStandardError: Bool, device: String) {
        guard !quiet, let results = analysis.results else { return }
        let text = AnalysisReport(analyses: [results], names: ["the run"]).text
        if onStandardError {
            var stream = StandardError()
            print(text, to: &stream)
        } else {
            print(text)
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
        StandardError.report(cell.description)
    }
}
