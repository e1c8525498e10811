import ComplexModule
import Foundation
import PicoAnalysis
import PicoLink

/// A run's analysis as marks on its plots: each peak ringed and labelled with its potential and height,
/// over its baseline from foot to foot; a fitted circuit's curve over the spectrum on the Nyquist plot
/// and on the Bode plot (|Z| and −phase), at 20 frequencies a decade across the measured ones.
public enum AnalysisOverlays {
    /// The overlays of `analysis`; a fit is drawn over the frequencies of the run's spectrum in `points`
    /// (read only when there is a fit).
    public static func of(
        _ analysis: RunAnalysis?,
        points: @autoclosure () throws -> PointTable
    ) rethrows -> [Plot.Overlay] {
        var spectrum: ImpedanceSpectrum?
        if analysis?.fit != nil, case .impedance(_, let measured)? = RunData.runs(of: try points()).first {
            spectrum = measured
        }
        return of(analysis, spectrum: spectrum)
    }

    /// The overlays of `analysis`; `spectrum` gives the frequencies a fit is drawn over.
    public static func of(_ analysis: RunAnalysis?, spectrum: ImpedanceSpectrum? = nil) -> [Plot.Overlay] {
        guard let analysis else { return [] }
        var overlays: [Plot.Overlay] = []
        let peaks = analysis.peaks
        if !peaks.isEmpty {
            overlays.append(
                Plot.Overlay(
                    target: .voltammogram,
                    name: "\(peaks.count) peak\(peaks.count == 1 ? "" : "s") over their baselines",
                    lines: peaks.map { _, peak in
                        Plot.Series(
                            name: "baseline",
                            x: [peak.leftFoot, peak.rightFoot],
                            y: [peak.leftFootBaseline, peak.rightFootBaseline]
                        )
                    },
                    marks: peaks.map { _, peak in
                        Plot.Overlay.Mark(
                            x: peak.potential,
                            y: peak.current,
                            label: SIFormat.format(peak.potential, unit: "V") + ", "
                                + SIFormat.format(peak.height, unit: "A")
                        )
                    }
                )
            )
        }
        if let fit = analysis.fit, let spectrum, let low = spectrum.frequencies.min(),
            let high = spectrum.frequencies.max(), low > 0, high > low
        {
            let count = max(2, Int((log10(high / low) * 20).rounded()) + 1)
            let frequencies = (0..<count).map { low * pow(high / low, Double($0) / Double(count - 1)) }
            let impedances = frequencies.map(fit.impedance)
            let name = "fit \(fit.circuit.code)"
            overlays.append(
                Plot.Overlay(
                    target: .nyquist,
                    name: name,
                    lines: [Plot.Series(name: name, x: impedances.map(\.real), y: impedances.map { -$0.imaginary })]
                )
            )
            overlays.append(
                Plot.Overlay(
                    target: .bode,
                    name: name,
                    lines: [
                        Plot.Series(name: name, x: frequencies, y: impedances.map(\.length)),
                        Plot.Series(
                            name: name,
                            x: frequencies,
                            y: impedances.map { atan2(-$0.imaginary, $0.real) * 180 / .pi },
                            onSecondAxis: true
                        ),
                    ]
                )
            )
        }
        return overlays
    }
}
