import BLETesting
import Foundation
import MethodSCRIPT
import Testing

@testable import PicoLink

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Each technique's plot drawn through `SVGSink`, read back as XML: ticks, axis titles, legends,
/// markers and the reason of a failed run are where a reader looks for them.
@Suite struct PlotRenderingTests {
    // MARK: Runs

    static func value(_ variable: VariableType, _ name: String?, _ value: Double) -> PicoValue {
        PicoValue(variable: variable, name: name, value: value)
    }

    static func package(_ index: Int, loop: Int = 1, scan: Int? = nil, _ values: [PicoValue]) -> PicoPackage {
        PicoPackage(
            device: "sim",
            run: 1,
            index: index,
            loop: loop,
            scan: scan,
            hostTime: Double(index),
            values: values
        )
    }

    /// A cyclic voltammogram of `scans` scans from 0 V to 0.5 V, down to −0.5 V and back, 10 mV steps.
    static func cv(scans: Int) -> [PicoPackage] {
        var packages: [PicoPackage] = []
        for scan in 0..<scans {
            for step in 0..<200 {
                let e =
                    step < 50
                    ? 0.01 * Double(step)
                    : step < 150 ? 0.5 - 0.01 * Double(step - 50) : -0.5 + 0.01 * Double(step - 150)
                let i = 20e-6 * tanh(e * 8) * (1 - 0.01 * Double(scan)) + (step < 50 || step >= 150 ? 3e-6 : -3e-6)
                packages.append(
                    package(
                        packages.count,
                        scan: scans > 1 ? scan + 1 : nil,
                        [value(.appliedPotential, "p", e), value(.current, "c", i)]
                    )
                )
            }
        }
        return packages
    }

    static func lsv() -> [PicoPackage] {
        (0...100).map { step in
            let e = -0.5 + 0.01 * Double(step)
            return package(step, [value(.appliedPotential, "p", e), value(.current, "c", 40e-6 / (1 + exp(-e * 12)))])
        }
    }

    /// A chronoamperogram whose current hardly moves: 20.001 µA to 20.004 µA.
    static func ca() -> [PicoPackage] {
        (0..<100).map { step in
            let t = 0.05 * Double(step)
            return package(
                step,
                [value(VariableType(code: "eb")!, "t", t), value(.current, "c", 20.001e-6 + 3e-9 * t / 5)]
            )
        }
    }

    /// Square-wave voltammetry: the difference `c`, the forward `f` and reverse `r` currents, all `ba`.
    static func swv() -> [PicoPackage] {
        (0...200).map { step in
            let e = -0.4 + 0.005 * Double(step)
            let peak = 10e-6 * exp(-((e - 0.1) * (e - 0.1)) / 0.01)
            let (f, r) = (peak / 2 + 2e-6, -peak / 2 + 1e-6)
            return package(
                step,
                [
                    value(.appliedPotential, "p", e), value(.current, "c", f - r), value(.current, "f", f),
                    value(.current, "r", r),
                ]
            )
        }
    }

    static func dpv() -> [PicoPackage] {
        (0...200).map { step in
            let e = -0.4 + 0.005 * Double(step)
            return package(
                step,
                [value(.appliedPotential, "p", e), value(.current, "c", 5e-6 * exp(-(e - 0.1) * (e - 0.1) / 0.005))]
            )
        }
    }

    /// A Randles cell (100 Ω, 1 kΩ, 1 µF) from 100 kHz to 10 mHz, 31 frequencies.
    static func eis() -> [PicoPackage] {
        (0..<31).map { step in
            let f = pow(10, 5 - 7 * Double(step) / 30)
            let w = 2 * Double.pi * f * 1e-6 * 1000
            let real = 100 + 1000 / (1 + w * w)
            let negativeImaginary = 1000 * w / (1 + w * w)
            return package(
                step,
                [
                    value(VariableType(code: "dc")!, "f", f), value(VariableType(code: "cc")!, "z_re", real),
                    value(VariableType(code: "cd")!, "z_im", negativeImaginary),
                ]
            )
        }
    }

    /// Draws `packages` through an `SVGSink`; returns the document.
    static func svg(_ packages: [PicoPackage], title: String, end: RunEnd? = nil) throws -> String {
        let path = SinkTests.temporaryPath("\(title).svg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = SVGSink(path: path, refreshInterval: .infinity)
        try sink.begin(RunInfo(device: "sim", run: 1, title: title, startTime: 0))
        for package in packages { try sink.write(package) }
        try sink.finish(end ?? RunEnd(complete: true, packages: packages.count))
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    // MARK: Reading the SVG back

    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        /// The panel (chart) it is in, from 0.
        var panel: Int
        var inLegend: Bool

        var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
        func number(_ attribute: String) -> Double { Double(attributes[attribute] ?? "") ?? .nan }
    }

    final class Reader: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        private var open: [Int] = []
        private var panel = -1
        private var legendDepth: Int? = nil

        func parser(
            _ parser: XMLParser,
            didStartElement name: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let classes = Set((attributes["class"] ?? "").split(separator: " "))
            if name == "g" && classes.contains("panel") { panel += 1 }
            if name == "g" && classes.contains("legend") { legendDepth = open.count }
            elements.append(Element(name: name, attributes: attributes, panel: panel, inLegend: legendDepth != nil))
            open.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
            if let depth = legendDepth, open.count == depth { legendDepth = nil }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { elements[last].text += string }
        }
    }

    /// The document's elements; fails the test when it is not well-formed XML.
    static func elements(_ svg: String) -> [Element] {
        let parser = XMLParser(data: Data(svg.utf8))
        let reader = Reader()
        parser.delegate = reader
        #expect(parser.parse(), "SVG must be well-formed XML: \(String(describing: parser.parserError))")
        return reader.elements
    }

    /// What a reader checks on every chart: the ticks of each axis are distinct, every legend entry
    /// lies right of the plot area, every curve and marker inside it.
    static func checkPanels(_ elements: [Element], _ name: String) {
        let panels = Set(elements.map(\.panel)).filter { $0 >= 0 }
        #expect(!panels.isEmpty, "\(name): no chart")
        for panel in panels.sorted() {
            let mine = elements.filter { $0.panel == panel }
            guard let area = mine.first(where: { $0.classes.contains("plot-area") }) else {
                Issue.record("\(name): chart \(panel) has no plot area")
                continue
            }
            let (left, top) = (area.number("x"), area.number("y"))
            let (right, bottom) = (left + area.number("width"), top + area.number("height"))
            for axis in ["x", "y", "y2"] {
                let ticks = mine.filter { $0.classes.contains("tick") && $0.classes.contains(axis) }.map(\.text)
                #expect(Set(ticks).count == ticks.count, "\(name): chart \(panel) repeats a \(axis) tick: \(ticks)")
            }
            for element in mine where element.inLegend && element.name != "g" {
                let x =
                    element.name == "circle"
                    ? element.number("cx") : element.number(element.name == "line" ? "x1" : "x")
                #expect(
                    x > right,
                    "\(name): legend \(element.name) \(element.text) at x = \(x), inside the plot (right \(right))"
                )
            }
            for element in mine where element.classes.contains("marker") {
                let (x, y) = (element.number("cx"), element.number("cy"))
                #expect(
                    x >= left - 0.1 && x <= right + 0.1 && y >= top - 0.1 && y <= bottom + 0.1,
                    "\(name): marker outside"
                )
            }
        }
    }

    static func axisTitles(_ elements: [Element], panel: Int = 0) -> [String: String] {
        var titles: [String: String] = [:]
        for element in elements where element.panel == panel && element.classes.contains("axis-title") {
            for axis in ["x", "y", "y2"] where element.classes.contains(axis) { titles[axis] = element.text }
        }
        return titles
    }

    static func legend(_ elements: [Element], panel: Int = 0) -> [String] {
        elements.filter { $0.panel == panel && $0.inLegend && $0.name == "text" }.map(\.text)
    }

    static func count(_ elements: [Element], class name: String, panel: Int = 0) -> Int {
        elements.filter { $0.panel == panel && $0.classes.contains(name) }.count
    }

    /// Converts `svg` to PNG with `rsvg-convert`, when it is installed, to show that a renderer reads it.
    static func convertsToPNG(_ svg: String, _ name: String) throws {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        guard
            let tool = directories.map({ "\($0)/rsvg-convert" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return }
        let input = SinkTests.temporaryPath("\(name).svg")
        let output = SinkTests.temporaryPath("\(name).png")
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        try svg.write(toFile: input, atomically: true, encoding: .utf8)
        let outcome = try TestProgram.run(tool, ["-o", output, input])
        #expect(outcome.status == 0, "\(name): rsvg-convert failed: \(outcome.errorText)")
        let png = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name): not a PNG")
    }

    // MARK: Techniques

    @Test func voltammetryReadsInMillivoltsAndMicroamperesWithTheScriptsNames() throws {
        for (name, packages) in [("cv", Self.cv(scans: 1)), ("lsv", Self.lsv()), ("dpv", Self.dpv())] {
            let svg = try Self.svg(packages, title: name)
            let elements = Self.elements(svg)
            Self.checkPanels(elements, name)
            #expect(Self.axisTitles(elements) == ["x": "E = p (mV)", "y": "I = c (µA)"], "\(name)")
            #expect(Self.count(elements, class: "curve") == 1, "\(name)")
            #expect(Self.legend(elements).isEmpty, "\(name): one curve needs no legend")
            let xTicks = elements.filter { $0.classes.contains("tick") && $0.classes.contains("x") }.map(\.text)
            #expect(xTicks.allSatisfy { Double($0) != nil && !$0.contains(".") }, "\(name): \(xTicks)")
            try Self.convertsToPNG(svg, name)
        }
    }

    @Test func cyclicVoltammetryHasOneColourPerScanAndALegendOutsideTheData() throws {
        let svg = try Self.svg(Self.cv(scans: 3), title: "cv")
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "cv, 3 scans")
        #expect(Self.legend(elements) == ["scan 1", "scan 2", "scan 3"])
        let colours = elements.filter { $0.classes.contains("curve") }.compactMap { $0.attributes["stroke"] }
        #expect(colours.count == 3 && Set(colours).count == 3)
        try Self.convertsToPNG(svg, "cv3")
    }

    @Test func fiftyScansAreAColourRampWithARangeLabel() throws {
        let svg = try Self.svg(Self.cv(scans: 50), title: "cv")
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "cv, 50 scans")
        let colours = elements.filter { $0.classes.contains("curve") }.compactMap { $0.attributes["stroke"] }
        #expect(colours.count == 50 && Set(colours).count == 50, "colours repeat: \(colours)")
        #expect(Self.legend(elements) == ["scan 1 … 50", "1", "50"])
        try Self.convertsToPNG(svg, "cv50")
    }

    @Test func chronoamperometryTicksNeverRepeat() throws {
        let svg = try Self.svg(Self.ca(), title: "ca")
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "ca")
        #expect(Self.axisTitles(elements) == ["x": "t (s)", "y": "I = c (µA)"])
        let yTicks = elements.filter { $0.classes.contains("tick") && $0.classes.contains("y") }.map(\.text)
        #expect(yTicks.count >= 4 && yTicks.allSatisfy { $0.hasPrefix("20.00") }, "\(yTicks)")
        try Self.convertsToPNG(svg, "ca")
    }

    @Test func squareWaveDrawsItsThreeCurrentsNamedAsTheScriptNamesThem() throws {
        let svg = try Self.svg(Self.swv(), title: "swv")
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "swv")
        #expect(Self.axisTitles(elements) == ["x": "E = p (mV)", "y": "I (µA)"])
        #expect(Self.legend(elements) == ["c", "f", "r"])
        let curves = elements.filter { $0.classes.contains("curve") }
        #expect(curves.count == 3 && Set(curves.compactMap { $0.attributes["points"] }).count == 3)
        try Self.convertsToPNG(svg, "swv")
    }

    @Test func impedanceIsNyquistWithMarkersAndFrequenciesAndBodeWithModulusAndPhase() throws {
        let svg = try Self.svg(Self.eis(), title: "eis")
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "eis")
        #expect(Set(elements.map(\.panel)).filter { $0 >= 0 }.count == 2)
        #expect(Self.axisTitles(elements, panel: 0) == ["x": "Z' = z_re (kΩ)", "y": "-Z'' = z_im (kΩ)"])
        #expect(Self.count(elements, class: "marker", panel: 0) == 31)
        let frequencies = elements.filter { $0.panel == 0 && $0.classes.contains("point-label") }.map(\.text)
        #expect((2...6).contains(frequencies.count) && frequencies.allSatisfy { $0.hasSuffix("Hz") }, "\(frequencies)")
        #expect(frequencies.contains("100 kHz"))
        #expect(Self.axisTitles(elements, panel: 1) == ["x": "f (Hz)", "y": "|Z| (kΩ)", "y2": "-phase (°)"])
        #expect(Self.legend(elements, panel: 1) == ["|Z|", "-phase"])
        #expect(Self.count(elements, class: "curve", panel: 1) == 2)
        try Self.convertsToPNG(svg, "eis")
    }

    @Test func aCustomScriptsAxesCarryItsVariableNames() throws {
        let packages = (0..<20).map { index in
            Self.package(
                index,
                [
                    Self.value(.current, "i_we", 1e-9 * Double(index)),
                    Self.value(VariableType(code: "ja")!, "n", Double(index % 3)),
                ]
            )
        }
        let svg = try Self.svg(packages, title: "custom")
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "custom")
        #expect(Self.axisTitles(elements, panel: 0) == ["x": "package", "y": "I = i_we (nA)"])
        #expect(Self.axisTitles(elements, panel: 1) == ["x": "package", "y": "n"])
        #expect(!svg.contains("ba (A)"))
    }

    @Test func aFailedRunIsDrawnWithItsReason() throws {
        let reason = "device error 0x4004 at script line 3 (\"bogus 1\"): unknown command <&>"
        let svg = try Self.svg([], title: "script", end: RunEnd(complete: false, reason: reason, packages: 0))
        let elements = Self.elements(svg)
        Self.checkPanels(elements, "failed")
        #expect(elements.contains { $0.classes.contains("empty") && $0.text == "No data" })
        let note = elements.filter { $0.classes.contains("note") }.map(\.text).joined(separator: " ")
        #expect(note == "incomplete: \(reason)")
        #expect(Self.count(elements, class: "curve") == 0)
        try Self.convertsToPNG(svg, "failed")

        let empty = Self.elements(try Self.svg([], title: "script"))
        #expect(empty.contains { $0.classes.contains("note") && $0.text.contains("without sending a data package") })

        // Cut short after some data: the data and the reason.
        let cut = Self.elements(
            try Self.svg(
                Self.lsv(),
                title: "lsv",
                end: RunEnd(complete: false, reason: "connection lost", packages: 101)
            )
        )
        #expect(cut.contains { $0.classes.contains("note") && $0.text == "incomplete: connection lost" })
        #expect(Self.count(cut, class: "curve") == 1)
    }

    @Test func textIsEscapedAndControlCharactersNeverReachTheXML() throws {
        let reason = "bad \u{1}byte & <tag> \"quoted\""
        let svg = try Self.svg([], title: "a<b>&c", end: RunEnd(complete: false, reason: reason, packages: 0))
        let elements = Self.elements(svg)
        #expect(
            elements.contains {
                $0.classes.contains("note") && $0.text == "incomplete: bad \u{FFFD}byte & <tag> \"quoted\""
            }
        )
        #expect(!svg.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }
}
