/// Draws `Plot`s as one standalone SVG document (no fonts, styles or images from elsewhere), the
/// charts stacked vertically.
///
/// Each chart has its ticks at round numbers, printed plainly in the unit its axis title gives with
/// one SI prefix for the whole axis (`E = p (mV)`: `-500`, `-250`, `0`…), its curves in one colour each
/// (a colour ramp past ten, labelled with the range: `scan 1 … 50`) and its legend to the right of the
/// data. A chart with nothing to draw says why in its plot area.
///
/// The output depends only on the input (no clock, no randomness), so it can be compared in tests.
/// Hand-written because no SVG or plotting package is available to the project, and a few hundred
/// lines of text output need none.
public struct SVGPlotRenderer: Sendable {
    /// The document's width, in pixels.
    public var width: Int
    /// Each chart's height, in pixels; the document is this times the number of charts high.
    public var panelHeight: Int
    /// A distinct colour for each of up to ten curves (the "tab10" palette).
    static let palette = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    ]
    /// The ramp that more curves than `palette` has are spread along: dark blue to orange (most of
    /// "plasma", without its pale yellow end).
    static let ramp: [(Double, Double, Double)] = [
        (13, 8, 135), (106, 0, 168), (177, 42, 144), (225, 100, 98), (252, 166, 54),
    ]
    /// Past this many curves the legend is a colour ramp with the first and last names.
    static let legendEntries = 10
    /// Rough width of a character of the 12-pixel sans-serif text, for laying out labels.
    static let characterWidth = 7.0

    /// A renderer for documents `width` pixels wide with charts `panelHeight` pixels high.
    public init(width: Int = 720, panelHeight: Int = 440) {
        self.width = width
        self.panelHeight = panelHeight
    }

    /// The SVG document. `note` (e.g. "incomplete: connection lost") is printed under the first title,
    /// or in the plot area when the first chart has nothing to draw, and is the document's `desc`.
    /// `metadata` (the run's provenance, `key: value`) goes into the document's `<metadata>`.
    public func render(_ plots: [Plot], note: String? = nil, metadata: [(key: String, value: String)] = []) -> String {
        let plots =
            plots.isEmpty
            ? [Plot(title: "no data", x: .init(label: "", unit: ""), y: .init(label: "", unit: ""), series: [])]
            : plots
        let height = plots.count * panelHeight
        var description = note.map { "\n<desc>\(escape($0))</desc>" } ?? ""
        if !metadata.isEmpty {
            description +=
                "\n<metadata>\n" + metadata.map { escape("\($0.key): \($0.value)") + "\n" }.joined() + "</metadata>"
        }
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <title>\(escape(plots.map(\.title).joined(separator: "; ")))</title>\(description)
            <rect width="100%" height="100%" fill="white"/>

            """
        for (index, plot) in plots.enumerated() {
            svg += panel(plot, top: Double(index * panelHeight), note: index == 0 ? note : nil)
        }
        return svg + "</svg>\n"
    }

    /// The colour of curve `index` of `count`: the palette up to ten, the ramp past that.
    static func colour(_ index: Int, of count: Int) -> String {
        if count <= legendEntries { return palette[index % palette.count] }
        let position = Double(index) / Double(max(1, count - 1)) * Double(ramp.count - 1)
        let lower = min(Int(position), ramp.count - 2)
        let weight = position - Double(lower)
        let (a, b) = (ramp[lower], ramp[lower + 1])
        func channel(_ x: Double, _ y: Double) -> String {
            let value = Int((x + (y - x) * weight).rounded())
            let digits = String(value, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "#" + channel(a.0, b.0) + channel(a.1, b.1) + channel(a.2, b.2)
    }

    // MARK: Panels

    private func panel(_ plot: Plot, top: Double, note: String?) -> String {
        if plot.drawablePointCount == 0 { return emptyPanel(plot, top: top, note: note) }
        let noteLines = note.map { wrap($0, width: Double(width) - 40, characterWidth: 6.5) } ?? []
        let points = plot.series.map { $0.drawable(x: plot.x, y: plot.yAxis(of: $0)) }
        let second = plot.y2 != nil && plot.series.contains { $0.onSecondAxis }
        let onSecond = plot.series.map { second && $0.onSecondAxis }
        // The overlays' lines and marks count for the scales as the curves do.
        let overlayLines = plot.overlays.flatMap(\.lines).map { line in
            (points: line.drawable(x: plot.x, y: plot.yAxis(of: line)), second: second && line.onSecondAxis)
        }
        let marks = plot.overlays.flatMap(\.marks).filter { mark in
            Plot.Series(name: "", x: [mark.x], y: [mark.y]).drawable(x: plot.x, y: plot.y).count == 1
        }
        let firstY =
            zip(points, onSecond).filter { !$0.1 }.flatMap { $0.0.map(\.1) }
            + overlayLines.filter { !$0.second }.flatMap { $0.points.map(\.1) } + marks.map(\.y)
        let secondY =
            zip(points, onSecond).filter { $0.1 }.flatMap { $0.0.map(\.1) }
            + overlayLines.filter(\.second).flatMap { $0.points.map(\.1) }
        let allX = points.flatMap { $0.map(\.0) } + overlayLines.flatMap { $0.points.map(\.0) } + marks.map(\.x)
        var xScale = PlotScale(covering: allX, logarithmic: plot.x.logarithmic)
        var yScale = PlotScale(covering: firstY, logarithmic: plot.y.logarithmic)
        let y2Scale = second ? PlotScale(covering: secondY, logarithmic: plot.y2!.logarithmic) : nil
        let y2Labels = y2Scale.map { $0.labels(unit: plot.y2!.unit) }
        let legend = Legend(plot: plot, points: points)

        // Room for the y labels on the left; for the second axis and the legend on the right.
        let yWidth = widest(yScale.labels(unit: plot.y.unit).texts)
        let left = max(60, 30 + yWidth + 12)
        var rightMargin = 20.0
        if let y2Labels { rightMargin += widest(y2Labels.texts) + 34 }
        if let legend { rightMargin += legend.width + 16 }
        let right = Double(width) - rightMargin
        let plotTop = top + 40 + 15 * Double(noteLines.count)
        let bottom = top + Double(panelHeight) - 48

        if plot.equalAspect, !plot.x.logarithmic, !plot.y.logarithmic {
            let xPerPixel = (xScale.upper - xScale.lower) / (right - left)
            let yPerPixel = (yScale.upper - yScale.lower) / (bottom - plotTop)
            if xPerPixel > yPerPixel {
                yScale = yScale.widened(to: xPerPixel * (bottom - plotTop))
            } else {
                xScale = xScale.widened(to: yPerPixel * (right - left))
            }
        }
        var xLabels = xScale.labels(unit: plot.x.unit)
        var yLabels = yScale.labels(unit: plot.y.unit)
        if plot.equalAspect, plot.x.unit == plot.y.unit, !plot.x.logarithmic, !plot.y.logarithmic {
            // One prefix for both axes: equal lengths must read as equal numbers.
            let exponent = max(xScale.preferredExponent(unit: plot.x.unit), yScale.preferredExponent(unit: plot.y.unit))
            xLabels = xScale.labels(unit: plot.x.unit, exponent: exponent)
            yLabels = yScale.labels(unit: plot.y.unit, exponent: exponent)
        }
        func px(_ value: Double) -> Double { left + xScale.fraction(value) * (right - left) }
        func py(_ value: Double, _ scale: PlotScale) -> Double { bottom - scale.fraction(value) * (bottom - plotTop) }

        var out = "<g class=\"panel\">\n"
        out += text(plot.title, x: (left + right) / 2, y: top + 20, anchor: "middle", extra: " font-size=\"14\"")
        for (index, line) in noteLines.enumerated() {
            // Under the title: a run's end reason can be long.
            let y = top + 36 + 15 * Double(index)
            out += text(line, x: Double(width) / 2, y: y, anchor: "middle", extra: " class=\"note\" fill=\"#b00\"")
        }
        out += "<rect class=\"plot-area\" x=\"\(f(left))\" y=\"\(f(plotTop))\" width=\"\(f(right - left))\" "
        out += "height=\"\(f(bottom - plotTop))\" fill=\"none\" stroke=\"#333\"/>\n"
        for (tick, label) in zip(xScale.visibleTicks, xLabels.texts) {
            let x = px(tick)
            out += line(x, plotTop, x, bottom, stroke: "#ddd")
            out += line(x, bottom, x, bottom + 4, stroke: "#333")
            out += text(label, x: x, y: bottom + 17, anchor: "middle", extra: " class=\"tick x\"")
        }
        for (tick, label) in zip(yScale.visibleTicks, yLabels.texts) {
            let y = py(tick, yScale)
            out += line(left, y, right, y, stroke: "#ddd")
            out += line(left - 4, y, left, y, stroke: "#333")
            out += text(label, x: left - 7, y: y + 4, anchor: "end", extra: " class=\"tick y\"")
        }
        let xTitle = plot.x.title(unit: xLabels.unit)
        out += text(xTitle, x: (left + right) / 2, y: bottom + 38, anchor: "middle", extra: " class=\"axis-title x\"")
        out += verticalText(plot.y.title(unit: yLabels.unit), x: 18, y: (plotTop + bottom) / 2, axis: "y")
        if let y2Scale, let y2Labels, let y2 = plot.y2 {
            for (tick, label) in zip(y2Scale.visibleTicks, y2Labels.texts) {
                let y = py(tick, y2Scale)
                out += line(right, y, right + 4, y, stroke: "#333")
                out += text(label, x: right + 7, y: y + 4, anchor: "start", extra: " class=\"tick y2\"")
            }
            let titleX = right + 7 + widest(y2Labels.texts) + 16
            out += verticalText(y2.title(unit: y2Labels.unit), x: titleX, y: (plotTop + bottom) / 2, axis: "y2")
        }

        var placed: [(x: Double, y: Double, width: Double)] = []
        for (index, series) in plot.series.enumerated() where !points[index].isEmpty {
            let colour = Self.colour(index, of: plot.series.count)
            let scale = onSecond[index] ? y2Scale! : yScale
            let path = points[index].map { "\(f(px($0.0))),\(f(py($0.1, scale)))" }.joined(separator: " ")
            out += "<polyline class=\"curve\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" "
            out += "points=\"\(path)\"/>\n"
            if series.markers {
                for point in points[index] {
                    out += "<circle class=\"marker\" cx=\"\(f(px(point.0)))\" cy=\"\(f(py(point.1, scale)))\" "
                    out += "r=\"2.5\" fill=\"\(colour)\"/>\n"
                }
            }
            let drawable = Set(series.drawableIndices(x: plot.x, y: plot.yAxis(of: series)))
            for label in series.pointLabels where drawable.contains(label.index) {
                let (x, y) = (px(series.x[label.index]), py(series.y[label.index], scale))
                let labelWidth = Double(label.text.count) * 6
                let atLeft = x + 6 + labelWidth > right
                let textX = atLeft ? x - 6 - labelWidth : x + 6
                let textY = y - 6 - 10 < plotTop ? y + 14 : y - 6
                // Labels never cover one another: one that would is left out.
                let overlaps = placed.contains {
                    abs($0.y - textY) < 11 && textX < $0.x + $0.width && $0.x < textX + labelWidth
                }
                if overlaps { continue }
                placed.append((textX, textY, labelWidth))
                let extra = " class=\"point-label\" font-size=\"10\" fill=\"#333\""
                out += text(label.text, x: textX, y: textY, anchor: "start", extra: extra)
            }
        }
        out += overlaySVG(plot, lines: overlayLines, marks: marks, left: left, plotTop: plotTop) {
            (px($0), py($1, $2 ? y2Scale ?? yScale : yScale))
        }
        if let legend {
            out += "<g class=\"legend\">\n"
            out += legend.svg(x: Double(width) - 20 - legend.width, top: plotTop, renderer: self)
            out += "</g>\n"
        }
        return out + "</g>\n"
    }

    /// The overlays: dashed black lines, black rings with their labels, and a caption naming them in the
    /// plot area's top left corner. `position` maps a value (x, y, on the second axis) to the page.
    private func overlaySVG(
        _ plot: Plot,
        lines: [(points: [(Double, Double)], second: Bool)],
        marks: [Plot.Overlay.Mark],
        left: Double,
        plotTop: Double,
        position: (Double, Double, Bool) -> (Double, Double)
    ) -> String {
        guard !plot.overlays.isEmpty else { return "" }
        var out = "<g class=\"overlay\">\n"
        for line in lines where line.points.count > 1 {
            let path = line.points.map { point in
                let (x, y) = position(point.0, point.1, line.second)
                return "\(f(x)),\(f(y))"
            }.joined(separator: " ")
            out += "<polyline class=\"overlay-line\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.2\" "
            out += "stroke-dasharray=\"5 3\" points=\"\(path)\"/>\n"
        }
        for mark in marks {
            let (x, y) = position(mark.x, mark.y, false)
            out += "<circle class=\"overlay-mark\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"5\" fill=\"none\" "
            out += "stroke=\"#000\" stroke-width=\"1.5\"/>\n"
            out += text(
                mark.label,
                x: x + 8,
                y: y - 8,
                anchor: "start",
                extra: " class=\"overlay-label\" font-size=\"10\""
            )
        }
        let caption = plot.overlays.map(\.name).joined(separator: "; ")
        out += text(
            caption,
            x: left + 6,
            y: plotTop + 14,
            anchor: "start",
            extra: " class=\"overlay-caption\" font-size=\"11\""
        )
        return out + "</g>\n"
    }

    /// A chart without a point to draw: its title, an empty plot area, and why it is empty.
    private func emptyPanel(_ plot: Plot, top: Double, note: String?) -> String {
        let (left, right) = (60.0, Double(width) - 20)
        let noteLines = note.map { wrap($0, width: right - left - 30, characterWidth: 7.5) } ?? []
        let (plotTop, bottom) = (top + 40, top + Double(panelHeight) - 48)
        var out = "<g class=\"panel\">\n"
        out += text(plot.title, x: (left + right) / 2, y: top + 20, anchor: "middle", extra: " font-size=\"14\"")
        out += "<rect class=\"plot-area\" x=\"\(f(left))\" y=\"\(f(plotTop))\" width=\"\(f(right - left))\" "
        out += "height=\"\(f(bottom - plotTop))\" fill=\"#f6f6f6\" stroke=\"#999\"/>\n"
        let headline = plot.series.isEmpty ? "No data" : "No points to draw (no finite values)"
        let middle = (plotTop + bottom) / 2 - 7.5 * Double(noteLines.count)
        let centre = (left + right) / 2
        out += text(
            headline,
            x: centre,
            y: middle,
            anchor: "middle",
            extra: " class=\"empty\" font-size=\"18\" fill=\"#555\""
        )
        for (index, line) in noteLines.enumerated() {
            let y = middle + 24 + 16 * Double(index)
            out += text(
                line,
                x: centre,
                y: y,
                anchor: "middle",
                extra: " class=\"note\" font-size=\"13\" fill=\"#b00\""
            )
        }
        return out + "</g>\n"
    }

    // MARK: Legend

    /// The names of a chart's curves, right of its plot area: a line (and dot) in each curve's colour
    /// and its name; past `legendEntries` curves, a bar of their colours with the first and last name
    /// and, when the names are one word and a number (`scan 1` … `scan 50`), the range above it.
    private struct Legend {
        var names: [String]
        var markers: [Bool]
        var count: Int
        var ramp: (heading: String?, first: String, last: String)?

        /// Nil for a chart of one curve.
        init?(plot: Plot, points: [[(Double, Double)]]) {
            let drawn = plot.series.indices.filter { !points[$0].isEmpty }
            guard plot.series.count > 1, !drawn.isEmpty else { return nil }
            count = plot.series.count
            names = plot.series.map {
                $0.name.count > Self.longestName ? String($0.name.prefix(Self.longestName - 1)) + "…" : $0.name
            }
            markers = plot.series.map(\.markers)
            if count > SVGPlotRenderer.legendEntries {
                let (first, last) = (names[0], names[count - 1])
                if let (stem, firstNumber) = Self.numbered(first), let (lastStem, lastNumber) = Self.numbered(last),
                    stem == lastStem
                {
                    ramp = ("\(stem)\(firstNumber) … \(lastNumber)", firstNumber, lastNumber)
                } else {
                    ramp = (nil, first, last)
                }
            }
        }

        /// Longer names are cut to this many characters (the last an ellipsis): the legend takes its
        /// width from the plot area.
        static let longestName = 24

        /// `("scan ", "12")` for `scan 12`.
        static func numbered(_ name: String) -> (String, String)? {
            let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count < name.count else { return nil }
            return (String(name.dropLast(digits.count)), String(digits.reversed()))
        }

        var width: Double {
            let c = SVGPlotRenderer.characterWidth
            if let ramp {
                let ends = Double(max(ramp.first.count, ramp.last.count)) * c + 20
                return max(ends, Double(ramp.heading?.count ?? 0) * c)
            }
            return 26 + Double(names.map(\.count).max() ?? 0) * c
        }

        func svg(x: Double, top: Double, renderer: SVGPlotRenderer) -> String {
            var out = ""
            if let ramp {
                var barTop = top + 2
                if let heading = ramp.heading {
                    out += renderer.text(heading, x: x, y: top + 10, anchor: "start")
                    barTop = top + 18
                }
                let height = 180.0
                let slice = height / Double(count)
                for index in 0..<count {
                    let y = barTop + Double(index) * slice
                    // A hair taller than the slice, so that no white shows between neighbours.
                    out += "<rect x=\"\(renderer.f(x))\" y=\"\(renderer.f(y))\" width=\"12\" "
                    out +=
                        "height=\"\(renderer.f(slice + 0.5))\" fill=\"\(SVGPlotRenderer.colour(index, of: count))\"/>\n"
                }
                out += renderer.text(ramp.first, x: x + 18, y: barTop + 10, anchor: "start")
                out += renderer.text(ramp.last, x: x + 18, y: barTop + height, anchor: "start")
                return out
            }
            for (index, name) in names.enumerated() {
                let y = top + 14 + Double(index) * 18
                let colour = SVGPlotRenderer.colour(index, of: count)
                out += renderer.line(x, y - 4, x + 18, y - 4, stroke: colour, width: 2)
                if markers[index] {
                    out +=
                        "<circle cx=\"\(renderer.f(x + 9))\" cy=\"\(renderer.f(y - 4))\" r=\"2.5\" fill=\"\(colour)\"/>\n"
                }
                out += renderer.text(name, x: x + 24, y: y, anchor: "start")
            }
            return out
        }
    }

    // MARK: Text and shapes

    /// The width the longest of `texts` takes.
    private func widest(_ texts: [String]) -> Double { Double(texts.map(\.count).max() ?? 0) * Self.characterWidth }

    /// `text` in lines that fit `width`, broken at spaces (a word longer than a line stands alone).
    private func wrap(_ text: String, width: Double, characterWidth: Double) -> [String] {
        let limit = max(10, Int(width / characterWidth))
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= limit {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    fileprivate func line(
        _ x1: Double,
        _ y1: Double,
        _ x2: Double,
        _ y2: Double,
        stroke: String,
        width: Double? = nil
    ) -> String {
        let strokeWidth = width.map { " stroke-width=\"\(f($0))\"" } ?? ""
        return
            "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\"\(strokeWidth)/>\n"
    }

    fileprivate func text(_ content: String, x: Double, y: Double, anchor: String, extra: String = "") -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\"\(extra)>\(escape(content))</text>\n"
    }

    /// The title of axis `axis`, turned to read upwards, centred on (`x`, `y`).
    private func verticalText(_ content: String, x: Double, y: Double, axis: String) -> String {
        "<text class=\"axis-title \(axis)\" x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 \(f(x)) \(f(y)))\">\(escape(content))</text>\n"
    }

    /// Pixel coordinates with one decimal: small files, no visible loss.
    fileprivate func f(_ value: Double) -> String { SIFormat.trimmed((value * 10).rounded() / 10, digits: 7) }

    /// `text` as XML character data: markup characters escaped, and characters XML does not allow
    /// (control characters) as U+FFFD.
    private func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value):
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
