import DeviceRuns
import Foundation
import PicoAnalysis
import PicoLink
import RunResults

/// The live view of a run: a table of packages on standard output (on standard error when standard
/// output carries data), throttled to `rowsPerSecond` (the last package of a run always shows), and a
/// progress line (points, rate, elapsed) on standard error, redrawn in place on a terminal.
final class LiveDisplay: RunDisplay {
    let rowsPerSecond: Double
    let showTable: Bool
    let tableOnStandardError: Bool
    private let start = Date()
    private var lastRow = Date.distantPast
    private var lastProgress = Date.distantPast
    private var points = 0
    private var header = false
    /// A progress line is drawn (on a terminal) and not yet wiped.
    private var progressShown = false
    /// Table rows printed so far (the rest were thinned out).
    private var rowsShown = 0
    private let terminal = isatty(STDERR_FILENO) != 0
    private var lastPackage: PicoPackage?
    private var lastPrinted = -1

    /// The points the script will send, when it says (`ScriptExtent`): then the progress line gives a
    /// percentage and the time left.
    let expectedPoints: Int?

    init(showTable: Bool, rowsPerSecond: Double = 10, tableOnStandardError: Bool = false, expectedPoints: Int? = nil) {
        self.showTable = showTable
        self.rowsPerSecond = rowsPerSecond
        self.tableOnStandardError = tableOnStandardError
        self.expectedPoints = expectedPoints
    }

    /// One line of the table (or of device text) where the table goes.
    private func emit(_ line: String) {
        clearProgress()
        if tableOnStandardError {
            var stream = StandardError()
            print(line, to: &stream)
        } else {
            print(line)
        }
    }

    func show(_ event: PicoEvent) {
        switch event {
        case .package(let package):
            points += 1
            lastPackage = package
            let now = Date()
            if showTable, now.timeIntervalSince(lastRow) >= 1 / rowsPerSecond {
                lastRow = now
                row(package)
            }
            if terminal, now.timeIntervalSince(lastProgress) >= 0.2 {
                lastProgress = now
                progress(final: false)
            }
        case .text(let text): emit("T \(EscapedText.of(text.utf8))")
        case .deviceError(let error):
            clearProgress()
            StandardError.write("\(error)\n")
        case .malformed(let text):
            clearProgress()
            StandardError.write("malformed reply: \(EscapedText.of(text.utf8))\n")
        case .ended:
            if showTable, let lastPackage, lastPackage.index != lastPrinted { row(lastPackage) }
        default: break
        }
    }

    /// `EmStat Pico espico1209#…`: where the table goes, so that standard output keeps only the data when
    /// it carries the data.
    func banner(_ version: PicoVersion) {
        let line = "\(version.device) \(version.firmware)"
        if tableOnStandardError {
            var stream = StandardError()
            print(line, to: &stream)
        } else {
            print(line)
            fflush(nil)
        }
    }

    /// The run's peaks or fit as tables (not without the table, as with `--quiet`), where the table goes.
    func report(_ analysis: RunAnalysis) {
        guard showTable else { return }
        let text = AnalysisReport(analyses: [analysis], names: ["the run"]).text
        if tableOnStandardError {
            var stream = StandardError()
            print(text, to: &stream)
        } else {
            print(text)
        }
    }

    /// The final progress line, and what the table left out when it thinned the rows.
    func finish() {
        progress(final: true)
        guard showTable, rowsShown < points else { return }
        var stream = StandardError()
        print(
            "table: \(rowsShown) of \(points) points shown (at most \(Int(rowsPerSecond)) rows a second);"
                + " --csv or --jsonl keep every point",
            to: &stream
        )
    }

    private func row(_ package: PicoPackage) {
        if !header {
            header = true
            emit(PackageRows.header(for: package))
        }
        lastPrinted = package.index
        rowsShown += 1
        emit(PackageRows.row(package))
        fflush(nil)
    }

    /// On a terminal, wipes the progress line (drawn without a newline) so that the next row or
    /// message starts on a clean line; the next progress draws it again.
    private func clearProgress() {
        guard terminal, progressShown else { return }
        progressShown = false
        StandardError.write("\r\u{1B}[K")
    }

    private func progress(final: Bool) {
        let elapsed = Date().timeIntervalSince(start)
        let line = PackageRows.progress(points: points, expected: expectedPoints, elapsed: elapsed, final: final)
        let text = terminal ? "\r\u{1B}[K" + line + (final ? "\n" : "") : (final ? line + "\n" : "")
        progressShown = terminal && !final
        StandardError.write(text)
    }
}
