import ComplexModule

/// What a point table holds for analysis: per run, its voltammograms (one per current column, for SWV the
/// difference, forward and reverse currents) or its impedance spectrum. The device reports −Z″ (positive
/// for a capacitive cell), as PalmSens' own output does; the spectrum holds Z″.
public enum RunData: Sendable {
    /// Voltammograms of one run: the current column's name and the curve.
    case voltammetry(run: Int, [(current: String, voltammogram: Voltammogram)])
    /// An impedance spectrum of one run.
    case impedance(run: Int, ImpedanceSpectrum)

    /// The runs of `table`: a frequency column and two impedance columns make a spectrum; otherwise a
    /// potential column and current columns make voltammograms (range columns left out; with forward `f`
    /// and reverse `r` currents, a square wave's, `r` is reversed). Rows are grouped by the `run` column
    /// when there is one.
    public static func runs(of table: PointTable) -> [RunData] {
        let runColumn = table.column("run")?.values
        func run(at row: Int) -> Int { runColumn.map { Int($0[row].isFinite ? $0[row] : 1) } ?? 1 }
        var order: [Int] = []
        var rows: [Int: [Int]] = [:]
        if table.rowCount > 0, (1..<table.rowCount).allSatisfy({ run(at: $0) == run(at: 0) }) {
            // One run (a run's own table): its rows in order, without a look-up per row.
            order = [run(at: 0)]
            rows[order[0]] = Array(0..<table.rowCount)
        } else {
            for row in 0..<table.rowCount {
                let run = run(at: row)
                if rows[run] == nil { order.append(run) }
                rows[run, default: []].append(row)
            }
        }
        let frequency = table.columns(in: "Hz").first
        let impedance = table.columns(in: "Ω")
        let potential = table.columns(in: "V").first
        let currents = table.columns(in: "A").filter { !$0.name.contains("range") }
        let scans = table.column("scan")?.values
        let squareWave = currents.contains { $0.name == "f" } && currents.contains { $0.name == "r" }
        return order.compactMap { run -> RunData? in
            let indices = rows[run] ?? []
            if let frequency, impedance.count >= 2 {
                let (real, imaginary) = (impedance[0].values, impedance[1].values)
                let kept = indices.filter {
                    frequency.values[$0].isFinite && real[$0].isFinite && imaginary[$0].isFinite
                }
                return .impedance(
                    run: run,
                    ImpedanceSpectrum(
                        frequencies: kept.map { frequency.values[$0] },
                        impedances: kept.map { Complex(real[$0], -imaginary[$0]) }
                    )
                )
            }
            guard let potential else { return nil }
            let curves = currents.map { current -> (String, Voltammogram) in
                let kept = indices.filter { potential.values[$0].isFinite && current.values[$0].isFinite }
                let scan = scans.map { values in kept.map { Int(values[$0].isFinite ? values[$0] : 1) } }
                return (
                    current.name,
                    Voltammogram(
                        potentials: kept.map { potential.values[$0] },
                        currents: kept.map { current.values[$0] },
                        scans: scan,
                        reversed: squareWave && current.name == "r"
                    )
                )
            }
            return curves.isEmpty ? nil : .voltammetry(run: run, curves)
        }
    }
}
