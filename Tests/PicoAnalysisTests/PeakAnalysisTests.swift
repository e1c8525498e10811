import AnalysisSamples
import Foundation
import PicoAnalysis
import Testing

/// Peaks of voltammograms with known peaks (Gaussians on a sloping line): the potential within a step,
/// the height above the baseline and the area within 1 %, with and without noise; CV sweeps each with its
/// sign; overlapping peaks kept apart or merged; a baseline through given potentials.
@Suite struct PeakAnalysisTests {
    static let bump = SyntheticCurves.Bump(centre: 0.1, height: 1e-6, sigma: 0.05)

    @Test(arguments: [0.0, 2e-9])
    func aPeakOnASlopingLineIsMeasured(noise: Double) throws {
        let sweep = SyntheticCurves.sweep(from: -0.5, to: 0.5, step: 0.005, bumps: [Self.bump], noise: noise)
        let voltammogram = Voltammogram(potentials: sweep.potentials, currents: sweep.currents)
        let peaks = PeakAnalysis.peaks(in: voltammogram, scanRate: 0.1)
        #expect(peaks.count == 1, "\(peaks)")
        let peak = try #require(peaks.first)
        #expect(abs(peak.potential - 0.1) <= 0.005, "\(peak.potential)")
        #expect(abs(peak.height - 1e-6) <= 0.01e-6, "\(peak.height)")
        let area = 1e-6 * 0.05 * (2 * Double.pi).squareRoot()
        // The area (and the charge at 0.1 V/s) within 1 % without noise; the noise moves the feet a little.
        let tolerance = noise == 0 ? 0.01 : 0.03
        #expect(abs(peak.area - area) <= tolerance * area, "\(peak.area) vs \(area)")
        #expect(abs((peak.charge ?? 0) - area / 0.1) <= tolerance * area / 0.1)
        // The width at half the height of a Gaussian: 2.3548 σ.
        #expect(abs(peak.width - 2.3548 * 0.05) <= 0.02 * 2.3548 * 0.05, "\(peak.width)")
        #expect(peak.direction == .anodic && peak.scan == 1 && peak.sweep == 1)
    }

    @Test func eachSweepOfACVHasItsPeakWithItsSign() throws {
        let forward = SyntheticCurves.sweep(from: -0.4, to: 0.6, step: 0.01, bumps: [Self.bump])
        let back = SyntheticCurves.sweep(
            from: 0.6,
            to: -0.4,
            step: 0.01,
            bumps: [SyntheticCurves.Bump(centre: 0.04, height: -0.8e-6, sigma: 0.05)]
        )
        // Two scans of the same cycle; the turning point belongs to both sweeps.
        let potentials =
            forward.potentials + back.potentials.dropFirst() + forward.potentials.dropFirst()
            + back.potentials.dropFirst()
        let currents =
            forward.currents + back.currents.dropFirst() + forward.currents.dropFirst()
            + back.currents.dropFirst()
        let half = forward.potentials.count + back.potentials.count - 1
        let scans = [Int](repeating: 1, count: half) + [Int](repeating: 2, count: potentials.count - half)
        let peaks = PeakAnalysis.peaks(in: Voltammogram(potentials: potentials, currents: currents, scans: scans))
        #expect(peaks.map(\.scan) == [1, 1, 2, 2], "\(peaks)")
        #expect(peaks.map(\.direction) == [.anodic, .cathodic, .anodic, .cathodic])
        #expect(peaks.map(\.sweep) == [1, 2, 1, 2])
        let cathodic = try #require(peaks.dropFirst().first)
        #expect(abs(cathodic.potential - 0.04) <= 0.01 && cathodic.current < 0)
        #expect(abs(cathodic.height + 0.8e-6) <= 0.008e-6, "\(cathodic.height)")
    }

    @Test func overlappingPeaksAreKeptApartOrMerged() {
        let bumps = [
            SyntheticCurves.Bump(centre: -0.04, height: 1e-6, sigma: 0.03),
            SyntheticCurves.Bump(centre: 0.04, height: 0.7e-6, sigma: 0.03),
        ]
        let sweep = SyntheticCurves.sweep(from: -0.5, to: 0.5, step: 0.002, bumps: bumps)
        let voltammogram = Voltammogram(potentials: sweep.potentials, currents: sweep.currents)
        let apart = PeakAnalysis.peaks(in: voltammogram, settings: PeakSettings(smoothingWindow: nil))
        #expect(apart.count == 2, "\(apart)")
        #expect(abs(apart[0].potential + 0.04) < 0.006 && abs(apart[1].potential - 0.04) < 0.006, "\(apart)")
        let merged = PeakAnalysis.peaks(
            in: voltammogram,
            settings: PeakSettings(smoothingWindow: nil, mergeOverlapping: true)
        )
        #expect(merged.count == 1 && merged[0].index == apart[0].index, "\(merged)")
        #expect(merged[0].leftFoot <= apart[0].leftFoot && merged[0].rightFoot >= apart[1].rightFoot)
        // Thresholds: a height above both, or a width above both, leaves none.
        #expect(PeakAnalysis.peaks(in: voltammogram, settings: PeakSettings(minimumHeight: 2e-6)).isEmpty)
        #expect(PeakAnalysis.peaks(in: voltammogram, settings: PeakSettings(minimumWidth: 0.5)).isEmpty)
    }

    @Test func aBaselineThroughGivenPotentials() throws {
        let sweep = SyntheticCurves.sweep(from: -0.5, to: 0.5, step: 0.005, bumps: [Self.bump], slope: 1e-6)
        let settings = PeakSettings(smoothingWindow: nil, baseline: .through(-0.3, 0.45))
        let peak = try #require(
            PeakAnalysis.peaks(
                in: Voltammogram(potentials: sweep.potentials, currents: sweep.currents),
                settings: settings
            ).first
        )
        // The line through the curve at -0.3 V and 0.45 V is the sloping line itself (the Gaussian has
        // died away there), so the height is the Gaussian's.
        #expect(abs(peak.baselineCurrent - (1e-7 + 1e-6 * peak.potential)) < 1e-10, "\(peak.baselineCurrent)")
        #expect(abs(peak.height - 1e-6) < 0.005e-6, "\(peak.height)")
    }
}
