import PicoAnalysis
import Testing

/// The peak finder on small curves whose maxima, prominences and widths can be worked out by hand (the
/// rules of scipy's `find_peaks`, `peak_prominences` and `peak_widths`).
@Suite struct PeakFinderTests {
    @Test func maximaFlatTopsAndEnds() {
        #expect(PeakFinder.localMaxima([0, 1, 0, 2, 2, 2, 0, 3]) == [1, 4])
        #expect(PeakFinder.localMaxima([0, 1, 1, 0]) == [1])
        #expect(PeakFinder.localMaxima([3, 2, 1]) == [])
        #expect(PeakFinder.localMaxima([0, 1, 1]) == [], "a flat top running into the end is no maximum")
    }

    @Test func prominenceBasesAndWidth() {
        // The 5: nothing higher on either side, so its bases are the lowest points to the ends (1 and 0):
        // prominence 5 - max(1, 0) = 4. The 4: the 5 on its left stops the search at the 2.
        let y: [Double] = [1, 2, 5, 3, 2, 4, 0]
        let (prominence, left, right) = PeakFinder.prominence(of: 2, in: y)
        #expect(prominence == 4 && left == 0 && right == 6)
        #expect(PeakFinder.prominence(of: 5, in: y) == (2, 4, 6))
        // Half the prominence below the top: 3; crossed a third of the way from 2 to 5, and at the 3.
        let width = PeakFinder.width(of: 2, in: y, prominence: 4, bases: (left, right), relative: 0.5)
        #expect(abs(width.left - 4.0 / 3) < 1e-12 && width.right == 3, "\(width)")
        let peaks = PeakFinder.peaks(y, minimumProminence: 2.5)
        #expect(peaks.map(\.index) == [2])
        #expect(PeakFinder.peaks(y).map(\.index) == [2, 5])
        #expect(PeakFinder.peaks(y, minimumWidth: 1.3).map(\.index) == [2])
    }

    /// The one-pass bases `peaks` uses are those of the scan from each maximum, on random curves with
    /// flat stretches and repeated values.
    @Test func theOnePassBasesAreTheScans() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<800 {
            // Few values (many flat stretches and ties), many (noise), or a random walk (long runs).
            let count = Int.random(in: 3...80, using: &generator)
            var y: [Double] = []
            for _ in 0..<count {
                switch round % 4 {
                case 0: y.append(Double(Int.random(in: 0...6, using: &generator)))
                case 1: y.append(Double(Int.random(in: 0...1_000, using: &generator)))
                case 2: y.append((y.last ?? 0) + Double(Int.random(in: -3...3, using: &generator)))
                default:
                    // No two neighbours equal (the maxima-only bases), but many equal values apart.
                    var value = Double(Int.random(in: 0...6, using: &generator))
                    while value == y.last { value = Double(Int.random(in: 0...6, using: &generator)) }
                    y.append(value)
                }
            }
            for peak in PeakFinder.localMaxima(y) {
                let scanned = PeakFinder.prominence(of: peak, in: y)
                let found = PeakFinder.peaks(y).first { $0.index == peak }
                #expect(found?.leftBase == scanned.left && found?.rightBase == scanned.right, "\(y) \(peak)")
                #expect(found?.prominence == scanned.prominence)
            }
        }
    }
}
