import ArgumentParser
import Foundation
import PicoAnalysis
import RigJournal
import RunResults
import Terminal

/// `hcipico analyze FILE`: the peaks of each voltammogram and an equivalent-circuit fit of each
/// impedance spectrum in a per-point CSV or in a rig's journal, as a table or JSON.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Find the peaks of voltammograms and fit a circuit to impedance spectra (a CSV or a journal).",
        discussion: """
            Reads a CSV written by `connect --csv` or `export` (or by PalmSens' C example), or a rig's \
            journal (the runs --run, --device, --since and --until select; all by default): what each run's \
            script measured decides what is done, and --stored prints what the rig stored as the run ended \
            instead of analysing again with these options. For each run, \
            a voltammogram's peaks per scan and sweep (each current column: for SWV the difference, forward \
            and reverse currents), or the fit of --circuit to a spectrum. Peaks: Savitzky–Golay smoothing, \
            maxima kept by their prominence and width as scipy's find_peaks keeps them, a baseline between \
            each peak's feet (or --baseline E1,E2), the height above it, the width at half height, the area \
            and, with --scan-rate, the charge; anodic peaks positive, cathodic negative. Fits: \
            Levenberg–Marquardt from values guessed from the data, each value with its standard error, and \
            chi-squared. Exit status: 0; 9 when a fit did not converge (the other results are still \
            printed); 64 for a file or an option that cannot be used.
            """
    )

    @Argument(help: "A per-point CSV (connect --csv, export) or a rig's journal (SQLite).")
    var file: String

    @OptionGroup var selection: JournalSelection

    @Flag(help: "A journal's runs as the rig analysed them when they ended (the options are not used).")
    var stored = false

    @Option(help: "Circuit for impedance spectra, in Boukamp's code: R(RC), R(Q(RW)), … (R, C, L, Q, W).")
    var circuit = "R(RC)"

    @Option(help: "Weighting of the fit: unit, modulus or proportional.")
    var weighting: FitWeighting = .modulus

    @Option(name: .customLong("max-iterations"), help: "Most iterations a fit may take before it is given up.")
    var maximumIterations = 500

    @Option(help: "Smoothing window in points (odd), auto, or off.")
    var smooth = "auto"

    @Option(
        name: .customLong("min-height"),
        help: "Smallest peak prominence kept, in A (default: 2 % of the sweep's span)."
    )
    var minimumHeight: Double?

    @Option(name: .customLong("min-width"), help: "Narrowest peak kept, in V (its width at half prominence).")
    var minimumWidth: Double = 0

    @Flag(help: "Merge neighbouring peaks not resolved at half height into the highest.")
    var merge = false

    @Option(help: "Baseline: feet (between each peak's feet) or E1,E2 (through the curve at two potentials, V).")
    var baseline = "feet"

    @Option(name: .customLong("scan-rate"), help: "The sweeps' scan rate in V/s, to give each peak's charge.")
    var scanRate: Double?

    @Flag(help: "Print JSON instead of tables.")
    var json = false

    func validate() throws {
        _ = try settings()
    }

    /// The settings the options give, checked as a rig's `[analysis]` table is.
    func settings() throws -> AnalysisSettings {
        var given: [(String, String)] = [
            ("smooth", smooth), ("min_width", "\(minimumWidth)"), ("merge", "\(merge)"), ("baseline", baseline),
            ("circuit", circuit), ("weighting", weighting.rawValue), ("max_iterations", "\(maximumIterations)"),
        ]
        if let minimumHeight { given.append(("min_height", "\(minimumHeight)")) }
        if let scanRate { given.append(("scan_rate", "\(scanRate)")) }
        var settings = AnalysisSettings()
        do throws(AnalysisSettings.SettingError) {
            for (name, value) in given { settings = try settings.with(name, value) }
            return settings
        } catch {
            throw ValidationError("--\(error.setting.replacingOccurrences(of: "_", with: "-")) \(error.message)")
        }
    }

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            StandardError.report("\(file): cannot be read")
            throw ExitStatus.badInput.exitCode
        }
        if data.starts(with: Array("SQLite format 3".utf8)) { return try analyseJournal() }
        guard !stored, selection.filter == RunFilter() else {
            StandardError.report("\(file): --stored, --run, --device, --since and --until are for a journal")
            throw ExitStatus.badInput.exitCode
        }
        let table: PointTable
        do {
            table = try PointTable(csv: String(decoding: data, as: UTF8.self))
        } catch {
            StandardError.report("\(file): \(error)")
            throw ExitStatus.badInput.exitCode
        }
        let runs = RunData.runs(of: table)
        guard !runs.isEmpty else {
            StandardError.report("\(file): no potential and current, or frequency and impedance, columns")
            throw ExitStatus.badInput.exitCode
        }
        let report = try AnalysisReport(runs: runs, settings: settings())
        print(json ? report.json : report.text)
        for failure in report.failures { StandardError.report("\(file): \(failure.run): \(failure.error)") }
        if !report.failures.isEmpty { throw ExitStatus.analysisFailed.exitCode }
    }

    /// The selected runs of a journal: analysed again with the options, or as the rig stored them.
    func analyseJournal() throws {
        let settings = try settings()
        let journal = try JournalSelection.open(file)
        let analyses: JournalAnalyses
        do {
            let runs = try journal.runs(selection.filter)
            guard !runs.isEmpty else {
                StandardError.report("no run matches in \(file)")
                throw ExitStatus.badInput.exitCode
            }
            analyses = try JournalAnalyses(runs: runs, in: journal, stored: stored, settings: settings)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardError.report("\(file): \(error)")
            throw ExitStatus.failure.exitCode
        }
        print(json ? analyses.json : analyses.text)
        let failures = analyses.failures
        for failure in failures { StandardError.report("\(file): \(failure.run): \(failure.error)") }
        if !failures.isEmpty { throw ExitStatus.analysisFailed.exitCode }
    }
}

extension FitWeighting: ExpressibleByArgument {}
