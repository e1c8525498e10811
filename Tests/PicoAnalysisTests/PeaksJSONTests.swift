import Foundation
import Testing

@testable import PicoAnalysis

/// The peaks' JSON written directly is byte for byte what the encoder writes, for values of every size and
/// kind (whole, tiny, huge, negative zero, not finite), with and without a charge, for several currents.
@Suite struct PeaksJSONTests {
    @Test func theDirectJSONIsTheEncodersByteForByte() throws {
        var generator = SystemRandomNumberGenerator()
        let specials: [Double] = [
            0, -0.0, 1, -2, 0.5, 1e-6, -2.5e-9, 123_456_789, 1e21, .leastNonzeroMagnitude, .nan, .infinity,
        ]
        func value() -> Double {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: specials.randomElement(using: &generator)!
            case 1: Double(Int.random(in: -1_000...1_000, using: &generator))
            case 2:
                Double.random(in: -1...1, using: &generator)
                    * pow(10, Double(Int.random(in: -12...8, using: &generator)))
            default: Double(Int.random(in: -3...3, using: &generator)) * 0.1
            }
        }
        for round in 0..<300 {
            let currents = ["c", "i_forward", "di", "c2"].prefix(round % 4)
            let results: [RunAnalysis.Result] = currents.map { current in
                .peaks(
                    current: current,
                    (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                        VoltammetricPeak(
                            scan: Int.random(in: 1...3, using: &generator),
                            sweep: Int.random(in: 1...2, using: &generator),
                            direction: Bool.random(using: &generator) ? .anodic : .cathodic,
                            index: Int.random(in: 0...5_000, using: &generator),
                            potential: value(),
                            current: value(),
                            baselineCurrent: value(),
                            height: value(),
                            prominence: value(),
                            width: value(),
                            area: value(),
                            charge: Bool.random(using: &generator) ? value() : nil,
                            leftFoot: value(),
                            rightFoot: value(),
                            leftFootBaseline: value(),
                            rightFootBaseline: value()
                        )
                    }
                )
            }
            let analysis = RunAnalysis(run: round, results: results)
            let direct = try #require(analysis.peaksJSON)
            #expect(direct == analysis.encodedJSON)
        }
        // A fit, or a current whose name needs escaping, goes to the encoder.
        #expect(RunAnalysis(run: 1, results: [.peaks(current: "a\"b", [])]).peaksJSON == nil)
    }
}
