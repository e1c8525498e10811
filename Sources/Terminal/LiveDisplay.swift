public import Coordination
public import DeviceRuns
public import PicoAnalysis
public import PicoLink
import RunResults

#if canImport(Glibc)
import Glibc
#endif

/// The live view of a run on a terminal: a table of packages on standard output (on standard error when
/// standard output carries data), thinned to `rowsPerSecond` (the last package of a run always shows),
/// and a progress line (points, rate, elapsed) on standard error, redrawn in place on a terminal.
public final class LiveDisplay: RunDisplay {
    /// Where a piece of the view goes.
    public enum Stream: Sendable {
        case output, error
    }

    /// The most table rows a second; the rest are left out (and counted at the end).
    public let rowsPerSecond: Double
    /// Whether the table is shown at all (not with `--quiet`).
    public let showTable: Bool
    /// Whether the table goes to standard error, standard output carrying data.
    public let tableOnStandardError: Bool
    /// The points the script will send, when it says (`ScriptExtent`): then the progress line gives a
    /// percentage and the time left.
    public let expectedPoints: Int?
    private let clock: any TimeSource
    private let terminal: Bool
    private let write: (String, Stream) -> Void
    private let start: Duration
    private var lastRow: Duration?
    private var lastProgress: Duration?
    private var points = 0
    private var header = false
    /// A progress line is drawn (on a terminal) and not yet wiped.
    private var progressShown = false
    /// Table rows printed so far (the rest were thinned out).
    private var rowsShown = 0
    private var lastPackage: PicoPackage?
    private var lastPrinted = -1

    /// A view on the process's standard streams unless `write` says otherwise, thinned on `clock`;
    /// `terminal` (standard error is one) redraws the progress line in place.
    public init(
        showTable: Bool,
        rowsPerSecond: Double = 10,
        tableOnStandardError: Bool = false,
        expectedPoints: Int? = nil,
        clock: any TimeSource = SystemClock(),
        terminal: Bool = isatty(STDERR_FILENO) != 0,
        write: @escaping (String, Stream) -> Void = LiveDisplay.standardStreams
    ) {
        self.showTable = showTable
        self.rowsPerSecond = rowsPerSecond
        self.tableOnStandardError = tableOnStandardError
        self.expectedPoints = expectedPoints
        self.clock = clock
        self.terminal = terminal
        self.write = write
        start = clock.now
    }

    /// Standard output through stdio, flushed at each newline it is given; standard error through
    /// ``StandardError``.
    public static func standardStreams(_ text: String, _ stream: Stream) {
        switch stream {
        case .output:
            print(text, terminator: "")
            fflush(nil)
        case .error: StandardError.write(text)
        }
    }

    /// One event: a package (a table row and the progress line, thinned), device text, a device error,
    /// a malformed reply, or the end (the last package's row).
    public func show(_ event: PicoEvent) {
        switch event {
        case .package(let package):
            points += 1
            lastPackage = package
            let now = clock.now
            if showTable, Self.due(lastRow, now, every: rowInterval) {
                lastRow = now
                row(package)
            }
            if terminal, Self.due(lastProgress, now, every: .milliseconds(200)) {
                lastProgress = now
                progress(final: false)
            }
        case .text(let text): table("T \(EscapedText.of(text.utf8))")
        case .deviceError(let error): message("\(error)")
        case .malformed(let text): message("malformed reply: \(EscapedText.of(text.utf8))")
        case .ended:
            if showTable, let lastPackage, lastPackage.index != lastPrinted { row(lastPackage) }
        default: break
        }
    }

    /// `EmStat Pico espico1209#…`, where the table goes.
    public func banner(_ version: PicoVersion) {
        table("\(version.device) \(version.firmware)")
    }

    /// The run's peaks or fit as tables (not without the table, as with `--quiet`), where the table goes.
    public func report(_ analysis: RunAnalysis) {
        guard showTable else { return }
        table(AnalysisReport(analyses: [analysis], names: ["the run"]).text)
    }

    /// The final progress line, and what the table left out when it thinned the rows.
    public func finish() {
        progress(final: true)
        guard showTable, rowsShown < points else { return }
        message(
            "table: \(rowsShown) of \(points) points shown (at most \(Int(rowsPerSecond)) rows a second);"
                + " --csv or --jsonl keep every point"
        )
    }

    private var rowInterval: Duration { .nanoseconds(Int64((1e9 / rowsPerSecond).rounded())) }

    private static func due(_ last: Duration?, _ now: Duration, every interval: Duration) -> Bool {
        guard let last else { return true }
        return now - last >= interval
    }

    /// One line of the table (or of device text) where the table goes.
    private func table(_ line: String) {
        clearProgress()
        write(line + "\n", tableOnStandardError ? .error : .output)
    }

    /// One line on standard error, below the progress line.
    private func message(_ line: String) {
        clearProgress()
        write(line + "\n", .error)
    }

    private func row(_ package: PicoPackage) {
        if !header {
            header = true
            table(PackageRows.header(for: package))
        }
        lastPrinted = package.index
        rowsShown += 1
        table(PackageRows.row(package))
    }

    /// On a terminal, wipes the progress line (drawn without a newline) so that the next row or
    /// message starts on a clean line; the next progress draws it again.
    private func clearProgress() {
        guard terminal, progressShown else { return }
        progressShown = false
        write("\r\u{1B}[K", .error)
    }

    private func progress(final: Bool) {
        let elapsed = (clock.now - start).inSeconds
        let line = PackageRows.progress(points: points, expected: expectedPoints, elapsed: elapsed, final: final)
        let text = terminal ? "\r\u{1B}[K" + line + (final ? "\n" : "") : (final ? line + "\n" : "")
        progressShown = terminal && !final
        if !text.isEmpty { write(text, .error) }
    }
}
