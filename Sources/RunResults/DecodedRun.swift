import Foundation
public import MethodSCRIPT
public import PicoLink

/// `decode --csv` and `--jsonl`: the transcript's packages as the run `connect` would have recorded,
/// written by the same sinks, so both commands share one schema and its names (the per-point table;
/// JSON Lines with a start event). A transcript has no host time: that column is empty (null in
/// JSON), and the script's names are unknown, so values are named by their type code (`da`, `ba`).
public final class DecodedRun {
    private let sink: any SampleSink
    private let device: String
    private var packages = 0
    /// Numbered from 1 and counted as a live run counts them (`PicoReceiver`).
    private var loop = 0
    private var scan: Int?
    private var nextScan = 1
    private var ended = false

    public init(sink: any SampleSink, device: String) {
        self.sink = sink
        self.device = device
    }

    /// The provenance lines (what is known: the transcript's name).
    public func begin() throws(SinkError) {
        try sink.begin(RunInfo(device: device, run: 1, title: "decode", startTime: .nan))
    }

    public func event(_ event: ReplyEvent) throws(SinkError) {
        switch event {
        case .package(let samples):
            let package = PicoPackage(
                device: device,
                run: 1,
                index: packages,
                loop: max(loop, 1),
                scan: scan,
                hostTime: .nan,
                values: samples.map { PicoValue(sample: $0) }
            )
            packages += 1
            try sink.write(package)
        case .measurementLoopStart:
            loop += 1
            nextScan = 1
        case .scanStart:
            scan = nextScan
            nextScan += 1
        case .scanEnd: scan = nil
        case .scriptEnd: ended = true
        default: break
        }
    }

    /// The end marker: complete when the transcript reached the script's closing empty line.
    public func finish() throws(SinkError) {
        let reason = ended ? nil : "the transcript ends before the script's closing empty line"
        try sink.finish(RunEnd(complete: ended, reason: reason, packages: packages))
    }
}
