import Foundation
import MethodSCRIPT
import Testing

@testable import PicoLink

@Suite struct PlotBuilderTests {
    static func package(_ index: Int, loop: Int = 1, scan: Int? = nil, _ values: [(String, Double)]) -> PicoPackage {
        PicoPackage(
            device: "d",
            run: 1,
            index: index,
            loop: loop,
            scan: scan,
            hostTime: Double(index),
            values: values.map { PicoValue(variable: VariableType(code: $0.0)!, value: $0.1) }
        )
    }

    @Test func voltammetryGetsOneSeriesPerScan() {
        var builder = PlotBuilder(title: "cv")
        for scan in 0..<3 {
            for step in 0..<10 {
                builder.add(Self.package(scan * 10 + step, scan: scan + 1, [("da", Double(step)), ("ba", 1e-6)]))
            }
        }
        let plots = builder.plots()
        #expect(plots.count == 1)
        #expect(plots[0].series.map(\.name) == ["scan 1", "scan 2", "scan 3"])
        #expect(plots[0].series.allSatisfy { $0.x.count == 10 })
        #expect(plots[0].x.unit == "V" && plots[0].y.unit == "A")
    }

    @Test func impedanceGetsNyquistAndBodeWithMinusPhaseInDegrees() {
        var builder = PlotBuilder(title: "eis")
        // `cd` as the device sends it: −Z'', positive for a capacitive cell.
        builder.add(Self.package(0, [("dc", 100), ("cc", 1000), ("cd", 1000)]))
        builder.add(Self.package(1, [("dc", 10), ("cc", 1000), ("cd", 0)]))
        let plots = builder.plots()
        #expect(plots.map(\.title) == ["eis: Nyquist", "eis: Bode"])
        #expect(plots[0].equalAspect)
        #expect(plots[0].series[0].y == [1000, 0])
        #expect(plots[0].series[0].markers)
        #expect(plots[0].series[0].pointLabels.map(\.text) == ["100 Hz", "10 Hz"])
        #expect(plots[1].series.map(\.name) == ["|Z|", "-phase"])
        #expect(abs(plots[1].series[1].y[0] - 45) < 1e-9)
        #expect(plots[1].series[1].onSecondAxis && plots[1].y2?.unit == "°")
        #expect(abs(plots[1].series[0].y[0] - 1414.2135623730951) < 1e-6)
        #expect(plots[1].x.logarithmic && plots[1].y.logarithmic)
    }

    @Test func nyquistLabelsAFewDecadesOfFrequency() {
        let frequencies = (0...70).map { pow(10, 5 - Double($0) / 10) }  // 100 kHz to 10 mHz
        let labels = PlotBuilder.frequencyLabels(frequencies)
        #expect(labels.map(\.text) == ["100 kHz", "1 kHz", "10 Hz", "100 mHz"])
        #expect(labels.map(\.index) == [0, 20, 40, 60])
        // No decade inside: the ends.
        #expect(PlotBuilder.frequencyLabels([300, 250, 200]).map(\.text) == ["300 Hz", "200 Hz"])
        #expect(PlotBuilder.frequencyLabels([]).isEmpty)
    }

    @Test func axesCarryTheQuantityAndTheScriptsName() {
        var builder = PlotBuilder(title: "swv")
        let names = ["p", "c", "f", "r"]
        let types: [VariableType] = [.appliedPotential, .current, .current, .current]
        for step in 0..<5 {
            builder.add(
                PicoPackage(
                    device: "d",
                    run: 1,
                    index: step,
                    loop: 1,
                    scan: nil,
                    hostTime: 0,
                    values: zip(types, names).map { PicoValue(variable: $0.0, name: $0.1, value: Double(step)) }
                )
            )
        }
        let plot = builder.plots()[0]
        #expect(plot.x.label == "E = p" && plot.x.unit == "V")
        #expect(plot.y.label == "I" && plot.y.unit == "A")
        #expect(plot.series.map(\.name) == ["c", "f", "r"])

        // The same without the script's names: the type codes, counted.
        var unnamed = PlotBuilder(title: "swv")
        for step in 0..<5 {
            unnamed.add(Self.package(step, [("da", 0), ("ba", 1), ("ba", 2), ("ba", 3)]))
        }
        #expect(unnamed.plots()[0].series.map(\.name) == ["ba", "ba 2", "ba 3"])
        #expect(unnamed.plots()[0].x.label == "E")
    }

    @Test func noPackagesIsOneEmptyPlot() {
        let plots = PlotBuilder(title: "script").plots()
        #expect(plots.count == 1 && plots[0].series.isEmpty && plots[0].title == "script: no data")
    }

    @Test func chronoamperometryUsesTheDeviceClock() {
        var builder = PlotBuilder(title: "ca")
        builder.add(Self.package(0, [("eb", 0.1), ("ba", 1e-6)]))
        builder.add(Self.package(1, [("eb", 0.2), ("ba", 2e-6)]))
        let plot = builder.plots()[0]
        #expect(plot.x.label == "t" && plot.y.label == "I")
        #expect(plot.series[0].x == [0.1, 0.2])
    }

    @Test func nanAndNonPositiveLogValuesAreNotDrawn() {
        let plot = Plot(
            title: "t",
            x: .init(label: "f", unit: "Hz", logarithmic: true),
            y: .init(label: "v", unit: ""),
            series: [.init(name: "s", x: [1, 0, 10, .nan], y: [1, 2, .nan, 4])]
        )
        #expect(plot.drawablePointCount == 1)
    }

    @Test func scalesUseNiceTicksAndDecades() {
        let linear = PlotScale(covering: [-0.5, 0.5], logarithmic: false)
        #expect(abs(linear.lower + 0.6) < 1e-12 && abs(linear.upper - 0.6) < 1e-12)
        #expect(linear.ticks.count == 7)
        #expect(linear.ticks.contains(0))
        let log = PlotScale(covering: [150, 200_000], logarithmic: true)
        #expect(log.lower == 100 && log.upper == 1_000_000)
        #expect(log.ticks.count == 5)
        #expect(PlotScale.niceStep(0.17) == 0.2)
        #expect(PlotScale.niceStep(3) == 5)
    }

    @Test func siFormatting() {
        #expect(SIFormat.format(-57.847747e-6) == "-57.85µ")
        #expect(SIFormat.format(9885.956) == "9.886k")
        #expect(SIFormat.format(0) == "0")
        #expect(SIFormat.format(1e-7, digits: 3) == "100n")
    }
}
