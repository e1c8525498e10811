import AnalysisSamples
import Foundation
import PicoAnalysis
import Testing

/// The smoothing filter: a polynomial of its order passes through unchanged, ends included; noise is
/// reduced; windows it cannot take are refused.
@Suite struct SavitzkyGolayTests {
    @Test(arguments: [(5, 2), (7, 3), (11, 2), (21, 4)])
    func aPolynomialOfItsOrderPassesUnchanged(window: Int, order: Int) throws {
        let filter = try #require(SavitzkyGolay(window: window, order: order))
        let x = (0..<60).map { Double($0) * 0.1 - 2 }
        let y = x.map { (t: Double) -> Double in
            var sum = 0.0
            for power in 0...order { sum += Double(power + 1) * pow(t, Double(power)) }
            return sum
        }
        for (smoothed, exact) in zip(filter.smooth(y), y) {
            #expect(abs(smoothed - exact) <= 1e-9 * max(1, abs(exact)), "\(smoothed) vs \(exact)")
        }
    }

    /// Long curves take the running sums (orders up to 3): they give what the textbook weights of the
    /// quadratic fit give by convolution, on a curve far from zero too, however long.
    @Test(arguments: [(5, 2), (11, 3), (21, 2), (31, 2)])
    func theRunningSumsAreTheConvolution(window: Int, order: Int) throws {
        let filter = try #require(SavitzkyGolay(window: window, order: order))
        var generator = SyntheticCurves.Seeded(state: UInt64(window))
        let y = (0..<5_003).map { i in
            3e-3 + 1e-6 * sin(Double(i) * 0.01) + 1e-8 * Double.random(in: -1...1, using: &generator)
        }
        let smoothed = filter.smooth(y)
        let h = Double(window / 2)
        let denominator = (2 * h - 1) * (2 * h + 1) * (2 * h + 3)
        for i in (window / 2)..<(y.count - window / 2) {
            var expected = 0.0
            for k in -(window / 2)...(window / 2) {
                let weight = (3 * (3 * h * h + 3 * h - 1) - 15 * Double(k * k)) / denominator
                expected += weight * y[i + k]
            }
            #expect(abs(smoothed[i] - expected) <= 1e-12 * abs(expected), "point \(i): \(smoothed[i]) vs \(expected)")
        }
    }

    @Test func noiseIsReducedAndTheWindowIsChecked() throws {
        let (_, noisy) = SyntheticCurves.sweep(from: 0, to: 1, step: 0.005, bumps: [], noise: 1e-8)
        let (_, clean) = SyntheticCurves.sweep(from: 0, to: 1, step: 0.005, bumps: [])
        let smoothed = try #require(SavitzkyGolay(window: 11, order: 2)).smooth(noisy)
        func rms(_ a: [Double]) -> Double {
            (zip(a, clean).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / 201).squareRoot()
        }
        #expect(rms(smoothed) < rms(noisy) / 2, "\(rms(smoothed)) vs \(rms(noisy))")
        #expect(SavitzkyGolay(window: 4, order: 2) == nil)
        #expect(SavitzkyGolay(window: 3, order: 3) == nil)
        #expect(try #require(SavitzkyGolay(window: 9, order: 2)).smooth([1, 2, 3]) == [1, 2, 3])
        #expect(SavitzkyGolay.automaticWindow(for: 1000) == 31 && SavitzkyGolay.automaticWindow(for: 200) == 11)
        #expect(SavitzkyGolay.automaticWindow(for: 4) == 3)
    }
}
