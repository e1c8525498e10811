/// Draws `Plot`s as one standalone SVG document, the charts stacked vertically.
///
/// The output depends only on the input (no clock, no randomness), so it can be compared in tests.
public struct SVGPlotRenderer: Sendable {
    public var width: Int
    public var panelHeight: Int
    static let margin = (left: 80.0, right: 20.0, top: 44.0, bottom: 48.0)
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    public init(width: Int = 720, panelHeight: Int = 440) {
        self.width = width
        self.panelHeight = panelHeight
    }

    /// The SVG document. `note` (e.g. "incomplete: connection lost") is printed under the title.
    public func render(_ plots: [Plot], note: String? = nil) -> String {
        let height = max(1, plots.count) * panelHeight
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        for (index, plot) in plots.enumerated() {
            svg += panel(plot, top: Double(index * panelHeight), note: index == 0 ? note : nil)
        }
        return svg + "</svg>\n"
    }

    private func panel(_ plot: Plot, top: Double, note: String?) -> String {
        let m = SVGPlotRenderer.margin
        let left = m.left
        let right = Double(width) - m.right
        let plotTop = top + m.top
        let bottom = top + Double(panelHeight) - m.bottom
        let points = plot.series.map { $0.drawable(x: plot.x, y: plot.y) }
        var xScale = PlotScale(covering: points.flatMap { $0.map(\.0) }, logarithmic: plot.x.logarithmic)
        var yScale = PlotScale(covering: points.flatMap { $0.map(\.1) }, logarithmic: plot.y.logarithmic)
        if plot.equalAspect, !plot.x.logarithmic, !plot.y.logarithmic {
            let xPerPixel = (xScale.upper - xScale.lower) / (right - left)
            let yPerPixel = (yScale.upper - yScale.lower) / (bottom - plotTop)
            if xPerPixel > yPerPixel {
                yScale = yScale.widened(to: xPerPixel * (bottom - plotTop))
            } else {
                xScale = xScale.widened(to: yPerPixel * (right - left))
            }
        }
        func px(_ value: Double) -> Double { left + xScale.fraction(value) * (right - left) }
        func py(_ value: Double) -> Double { bottom - yScale.fraction(value) * (bottom - plotTop) }

        var out = "<g>\n"
        out += text(plot.title, x: (left + right) / 2, y: top + 18, anchor: "middle", extra: " font-size=\"14\"")
        if let note {
            // On a line of its own under the title: a run's end reason can be long.
            out += text(note, x: (left + right) / 2, y: top + 35, anchor: "middle", extra: " fill=\"#b00\"")
        }
        out += "<rect x=\"\(f(left))\" y=\"\(f(plotTop))\" width=\"\(f(right - left))\" "
        out += "height=\"\(f(bottom - plotTop))\" fill=\"none\" stroke=\"#333\"/>\n"
        for tick in xScale.ticks where tick >= xScale.lower && tick <= xScale.upper {
            let x = px(tick)
            out += line(x, plotTop, x, bottom, stroke: "#ddd")
            out += text(SIFormat.format(tick, digits: 3), x: x, y: bottom + 16, anchor: "middle")
        }
        for tick in yScale.ticks where tick >= yScale.lower && tick <= yScale.upper {
            let y = py(tick)
            out += line(left, y, right, y, stroke: "#ddd")
            out += text(SIFormat.format(tick, digits: 3), x: left - 6, y: y + 4, anchor: "end")
        }
        out += text(plot.x.title, x: (left + right) / 2, y: bottom + 36, anchor: "middle")
        let yMid = (plotTop + bottom) / 2
        out += "<text x=\"18\" y=\"\(f(yMid))\" text-anchor=\"middle\" "
        out += "transform=\"rotate(-90 18 \(f(yMid)))\">\(escape(plot.y.title))</text>\n"
        for (index, series) in points.enumerated() where !series.isEmpty {
            let colour = SVGPlotRenderer.palette[index % SVGPlotRenderer.palette.count]
            let path = series.map { "\(f(px($0.0))),\(f(py($0.1)))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" points=\"\(path)\"/>\n"
            if plot.series.count > 1 {
                let y = plotTop + 16 + Double(index) * 16
                out += text(plot.series[index].name, x: right - 8, y: y, anchor: "end", extra: " fill=\"\(colour)\"")
            }
        }
        return out + "</g>\n"
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\"/>\n"
    }

    private func text(_ content: String, x: Double, y: Double, anchor: String, extra: String = "") -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\"\(extra)>\(escape(content))</text>\n"
    }

    /// Pixel coordinates with one decimal: small files, no visible loss.
    private func f(_ value: Double) -> String { SIFormat.trimmed((value * 10).rounded() / 10, digits: 7) }

    private func escape(_ text: String) -> String {
        var out = ""
        for char in text {
            switch char {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(char)
            }
        }
        return out
    }
}
