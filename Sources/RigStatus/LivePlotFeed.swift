import Foundation
import PicoLink
import RigJournal
import RigModel

/// One event-stream client's view of the devices' plots: for each device, the run it shows (the one in
/// progress, else the latest) and how many points of each series the client has. Each call reads what
/// the journal has committed since, and returns `plot` events: the whole plot when the run, the axes or
/// the series changed shape (`reset`), else only the new points.
struct LivePlotFeed {
    private struct Track {
        var run: Int64
        var title: String
        var builder: PlotBuilder
        var lastIndex = -1
        /// The host time of the newest package read (when the rig received it).
        var latestHostTime: Double?
        /// What the client was last sent: the title and axes, the series' names and point counts.
        var axes: String?
        var names: [String] = []
        var sent: [Int] = []
    }

    /// Packages read per device and call, so one long backlog cannot hold the stream up.
    static let readLimit = 20_000

    private var tracks: [String: Track] = [:]

    mutating func events(journal: Journal, devices: [DeviceSnapshot]) throws -> [String] {
        var events: [String] = []
        for device in devices {
            let target: (id: Int64, title: String)?
            if let current = device.currentRun, let id = try journal.runID(uuid: current.uuid) {
                target = (id, "\(device.name) run \(current.deviceRun): \(current.title)")
            } else if let latest = try journal.latestRun(device: device.name) {
                target = (latest.id, "\(device.name) run \(latest.deviceRun): \(latest.title)")
            } else {
                target = nil
            }
            guard let target else { continue }
            var track = tracks[device.name] ?? Track(run: -1, title: "", builder: PlotBuilder(title: ""))
            if track.run != target.id {
                track = Track(run: target.id, title: target.title, builder: PlotBuilder(title: target.title))
            }
            let fresh = try journal.packages(of: target.id, after: track.lastIndex, limit: Self.readLimit)
            for package in fresh { track.builder.add(package) }
            if let last = fresh.last {
                track.lastIndex = last.index
                track.latestHostTime = last.hostTime
            }
            if let event = event(device: device.name, track: &track, changed: !fresh.isEmpty) { events.append(event) }
            tracks[device.name] = track
        }
        return events
    }

    private func event(device: String, track: inout Track, changed: Bool) -> String? {
        guard changed || track.axes == nil, let plot = track.builder.plots().first else { return nil }
        let axes = "\(plot.title)|\(plot.x)|\(plot.y)"
        let names = plot.series.map(\.name)
        let counts = plot.series.map(\.x.count)
        // The client can append only when the plot keeps its axes, its series (new ones may follow) and
        // every point it has; anything else is sent whole.
        let reset =
            track.axes != axes || !names.starts(with: track.names)
            || zip(counts, track.sent).contains { $0 < $1 }
        let from = reset ? counts.map { _ in 0 } : counts.indices.map { $0 < track.sent.count ? track.sent[$0] : 0 }
        guard reset || zip(counts, from).contains(where: { $0 > $1 }) else { return nil }
        track.axes = axes
        track.names = names
        track.sent = counts
        let document = PlotEvent(
            device: device,
            run: track.run,
            reset: reset,
            latestHostTime: track.latestHostTime,
            title: plot.title,
            x: .init(label: plot.x.label, unit: plot.x.unit, log: plot.x.logarithmic),
            y: .init(label: plot.y.label, unit: plot.y.unit, log: plot.y.logarithmic),
            series: plot.series.enumerated().map { index, series in
                PlotEvent.Series(
                    name: series.name,
                    from: from[index],
                    x: series.x[from[index]...].map(Self.finite),
                    y: series.y[from[index]...].map(Self.finite)
                )
            }
        )
        guard let data = try? StatusDocument.encoder.encode(document) else { return nil }
        return "event: plot\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
    }

    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}

/// The JSON of a `plot` event.
struct PlotEvent: Encodable {
    struct Axis: Encodable {
        var label: String
        var unit: String
        var log: Bool
    }

    struct Series: Encodable {
        var name: String
        var from: Int
        var x: [Double?]
        var y: [Double?]
    }

    var device: String
    var run: Int64
    var reset: Bool
    /// When the rig received the newest package in the plot (seconds since the epoch).
    var latestHostTime: Double?
    var title: String
    var x: Axis
    var y: Axis
    var series: [Series]
}
