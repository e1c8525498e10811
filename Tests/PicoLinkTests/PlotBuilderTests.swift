import MethodSCRIPT
import Testing

@testable import PicoLink

@Suite struct PlotBuilderTests {
    static func package(_ index: Int, loop: Int = 0, scan: Int? = nil, _ values: [(String, Double)]) -> PicoPackage {
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
                builder.add(Self.package(scan * 10 + step, scan: scan, [("da", Double(step)), ("ba", 1e-6)]))
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
        #expect(plots.map(\.title) == ["eis: Nyquist", "eis: Bode modulus", "eis: Bode phase"])
        #expect(plots[0].equalAspect)
        #expect(plots[0].series[0].y == [1000, 0])
        #expect(abs(plots[2].series[0].y[0] - 45) < 1e-9)
        #expect(abs(plots[1].series[0].y[0] - 1414.2135623730951) < 1e-6)
        #expect(plots[1].x.logarithmic && plots[1].y.logarithmic)
    }

    @Test func chronoamperometryUsesTheDeviceClock() {
        var builder = PlotBuilder(title: "ca")
        builder.add(Self.package(0, [("eb", 0.1), ("ba", 1e-6)]))
        builder.add(Self.package(1, [("eb", 0.2), ("ba", 2e-6)]))
        let plot = builder.plots()[0]
        #expect(plot.x.label == "t")
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
