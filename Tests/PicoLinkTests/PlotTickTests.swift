import Testing

@testable import PicoLink

@Suite struct PlotTickTests {
    /// Ranges a plot meets: tiny, huge, negative, spanning zero, nearly constant, constant.
    static let ranges: [(Double, Double)] = {
        var ranges: [(Double, Double)] = [
            (0, 1), (-0.5, 0.5), (-0.5, 0.5000001), (20.001e-6, 20.004e-6), (19.97e-6, 20.03e-6),
            (1e-15, 3e-15), (-2e-12, 7e-12), (1e20, 5e20), (-7e9, -3e9), (-3, 1e4), (0.1, 0.100001),
            (999, 1001), (1.5e-7, 2.5e3), (20e-6, 20e-6), (0, 0), (-4.2, -4.2), (1e-300, 1e-300),
            (-1e300, 1e300), (Double.leastNonzeroMagnitude, 2 * Double.leastNonzeroMagnitude), (0.2, 0.2 + 1e-16),
            (-58e-6, 43e-6), (0, 1e5),
            (0.01, 0.99), (123_456, 123_457),
        ]
        // A spread of spans at a spread of offsets and magnitudes.
        for exponent in stride(from: -18, through: 18, by: 3) {
            for span in [1.0, 1.7, 2.3, 3.9, 6.1, 9.99] {
                for offset in [-3.0, -0.5, 0, 0.25, 1, 7.5, 1000] {
                    let unit = PlotScale.times(1, tenToThe: exponent)
                    ranges.append((offset * unit, (offset + span) * unit))
                }
            }
        }
        return ranges
    }()

    @Test(arguments: ["V", "A", "°", ""])
    func linearTickLabelsAreFewUniqueAndInOrder(unit: String) throws {
        for (low, high) in Self.ranges {
            let scale = PlotScale(covering: [low, high], logarithmic: false)
            let ticks = scale.visibleTicks
            let labels = scale.labels(unit: unit)
            let context = "range \(low)…\(high) in \(unit): ticks \(ticks), labels \(labels.texts)"
            #expect((4...8).contains(ticks.count), "\(context)")
            #expect(labels.texts.count == ticks.count, "\(context)")
            #expect(Set(labels.texts).count == labels.texts.count, "labels repeat: \(context)")
            let numbers = labels.texts.compactMap(Double.init)
            #expect(numbers.count == labels.texts.count, "labels are not plain numbers: \(context)")
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "labels out of order: \(context)")
            #expect(!labels.texts.contains("-0") && !labels.texts.contains { $0.hasPrefix("-0") && Double($0) == 0 })
            // The data is inside the scale.
            let slack = scale.step!.value * 1e-9
            #expect(scale.lower <= min(low, high) + slack && scale.upper >= max(low, high) - slack, "\(context)")
            // Each label is its tick in the axis' unit.
            for (tick, number) in zip(ticks, numbers) {
                let value = PlotScale.times(number, tenToThe: labels.exponent)
                #expect(abs(value - tick) <= scale.step!.value * 1e-6, "\(context)")
            }
        }
    }

    @Test func oneSIPrefixForTheWholeAxisAndDecimalsOnlyAsTheStepNeeds() {
        let potential = PlotScale(covering: [-0.5, 0.5], logarithmic: false).labels(unit: "V")
        #expect(potential.unit == "mV")
        #expect(potential.texts.first == "-600" && potential.texts.last == "600")
        #expect(potential.texts.contains("0") && potential.texts.allSatisfy { !$0.contains(".") })

        // A chronoamperogram's nearly constant current: every tick distinct, in µA.
        let current = PlotScale(covering: [20.001e-6, 20.004e-6], logarithmic: false).labels(unit: "A")
        #expect(current.unit == "µA")
        #expect((4...8).contains(current.texts.count) && current.texts.contains("20.0020"))
        #expect(current.texts.allSatisfy { $0.hasPrefix("20.00") && $0.count == 7 })

        let volts = PlotScale(covering: [0, 1.2], logarithmic: false).labels(unit: "V")
        #expect(volts.unit == "V" && volts.texts == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2"])

        let ohms = PlotScale(covering: [0, 12_000], logarithmic: false).labels(unit: "Ω")
        #expect(ohms.unit == "kΩ" && ohms.texts == ["0", "2", "4", "6", "8", "10", "12"])

        // Degrees take no prefix; a unitless axis takes a power of ten only when its numbers get long.
        #expect(PlotScale(covering: [0.001, 0.004], logarithmic: false).labels(unit: "°").unit == "°")
        #expect(PlotScale(covering: [0, 2000], logarithmic: false).labels(unit: "").unit == "")
        let counts = PlotScale(covering: [0, 3e6], logarithmic: false).labels(unit: "")
        #expect(counts.unit == "×10⁶" && counts.texts.last == "3.0")

        // A forced exponent (both axes of a Nyquist plot in the same prefix).
        let forced = PlotScale(covering: [0, 500], logarithmic: false).labels(unit: "Ω", exponent: 3)
        #expect(forced.unit == "kΩ" && forced.texts == ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"])
    }

    @Test func logarithmicLabelsAreUniqueAndInOrder() {
        let ranges: [(Double, Double)] = [
            (0.01, 1e5), (150, 200_000), (120, 180), (1, 1), (3e-9, 4e-3), (1e-20, 1e20), (7e5, 9e8), (0.5, 2),
        ]
        for (low, high) in ranges {
            let scale = PlotScale(covering: [low, high], logarithmic: true)
            let labels = scale.labels(unit: "Hz")
            let context = "range \(low)…\(high): \(labels.texts) \(labels.unit)"
            #expect(scale.lower <= low && scale.upper >= high, "\(context)")
            #expect((2...9).contains(labels.texts.count), "\(context)")
            #expect(Set(labels.texts).count == labels.texts.count, "\(context)")
            #expect(zip(scale.visibleTicks, scale.visibleTicks.dropFirst()).allSatisfy { $0 < $1 }, "\(context)")
            let numbers = labels.texts.compactMap(Double.init)
            if numbers.count == labels.texts.count {
                #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "\(context)")
            } else {
                #expect(labels.texts.allSatisfy { $0.contains("10") }, "\(context)")
            }
        }
        let eis = PlotScale(covering: [0.01, 1e5], logarithmic: true).labels(unit: "Hz")
        #expect(eis.unit == "Hz")
        #expect(eis.texts == ["0.01", "0.1", "1", "10", "100", "1000", "10000", "100000"])
        let megohms = PlotScale(covering: [2e6, 5e8], logarithmic: true).labels(unit: "Ω")
        #expect(megohms.unit == "MΩ" && megohms.texts == ["1", "10", "100", "1000"])
        let wide = PlotScale(covering: [1e-20, 1e20], logarithmic: true).labels(unit: "")
        #expect(wide.texts.first == "10⁻²⁰" && wide.texts.last == "10²⁰")
        // Within two decades: 1, 2 and 5 in each, in the prefix that keeps them shortest.
        let narrow = PlotScale(covering: [120, 180], logarithmic: true).labels(unit: "Ω")
        #expect(narrow.unit == "kΩ" && narrow.texts == ["0.1", "0.2", "0.5", "1"])
    }

    @Test func fixedAndPrefixedNumbers() {
        #expect(SIFormat.fixed(0.25, decimals: 1) == "0.3")
        #expect(SIFormat.fixed(-2, decimals: 2) == "-2.00")
        #expect(SIFormat.fixed(-0.0001, decimals: 2) == "0.00")
        #expect(SIFormat.fixed(-0.05, decimals: 2) == "-0.05")
        #expect(SIFormat.fixed(1234.5, decimals: 0) == "1235")
        #expect(SIFormat.fixed(0.000123, decimals: 6) == "0.000123")
        #expect(SIFormat.format(100_000, unit: "Hz") == "100 kHz")
        #expect(SIFormat.format(0.01, unit: "Hz") == "10 mHz")
        #expect(SIFormat.format(999.96, unit: "Hz") == "1 kHz")
        #expect(SIFormat.format(31.62, unit: "Hz") == "31.6 Hz")
        #expect(SIFormat.powerOfTen(-12) == "10⁻¹²")
        #expect(
            SIFormat.exponent(of: 2e-5) == -6 && SIFormat.exponent(of: 1000) == 3 && SIFormat.exponent(of: 0.5) == -3
        )
    }
}
