import Foundation
import RigCore
import RigJournal
import RigModel
import Testing

@testable import RigStatus

/// The live plot sends a run whole once, then only what the journal committed since; a new run starts over.
@Suite struct LivePlotFeedTests {
    struct Event: Decodable {
        struct Series: Decodable {
            var name: String
            var from: Int
            var x: [Double?]
            var y: [Double?]
        }
        var device: String
        var run: Int64
        var reset: Bool
        var series: [Series]
    }

    func decode(_ events: [String]) throws -> [Event] {
        try events.map { text in
            #expect(text.hasPrefix("event: plot\ndata: ") && text.hasSuffix("\n\n"))
            let json = text.dropFirst("event: plot\ndata: ".count).dropLast(2)
            return try JSONDecoder().decode(Event.self, from: Data(json.utf8))
        }
    }

    @Test func wholeThenAppendedThenANewRun() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let journal = try Journal.open(path: path, rig: "lab-1")
        let writer = journal.writer(commitInterval: 0.005)
        let first = FleetFixtures.provenance(device: "pico-a", start: 1_000)
        try await writer.runStarted(first)
        for index in 0..<10 {
            try await writer.record(FleetFixtures.package(index, device: "pico-a", start: 1_000), run: first.runID)
        }
        try await writer.flush()
        var device = DeviceSnapshot(name: "pico-a")
        device.currentRun = DeviceSnapshot.CurrentRun(
            uuid: first.runID.uuidString.lowercased(),
            deviceRun: 1,
            title: "CV.mscr",
            startedAt: 1_000,
            packages: 10
        )
        var feed = LivePlotFeed()

        let whole = try decode(try feed.events(journal: journal, devices: [device]))
        #expect(whole.count == 1 && whole[0].reset && whole[0].series.count == 1)
        #expect(whole[0].series[0].x.count == 10 && whole[0].series[0].y[3] == nil)
        #expect(try feed.events(journal: journal, devices: [device]).isEmpty)

        for index in 10..<15 {
            try await writer.record(FleetFixtures.package(index, device: "pico-a", start: 1_000), run: first.runID)
        }
        try await writer.flush()
        let appended = try decode(try feed.events(journal: journal, devices: [device]))
        #expect(appended.count == 1 && !appended[0].reset)
        #expect(appended[0].series[0].from == 10 && appended[0].series[0].x == [0.10, 0.11, 0.12, 0.13, 0.14])

        let second = FleetFixtures.provenance(device: "pico-a", run: 2, start: 2_000)
        try await writer.runEnded(first.runID, JournalRunEnd(complete: true, reason: nil, time: 1_001))
        try await writer.runStarted(second)
        try await writer.record(FleetFixtures.package(0, device: "pico-a", start: 2_000), run: second.runID)
        try await writer.flush()
        device.currentRun?.uuid = second.runID.uuidString.lowercased()
        let fresh = try decode(try feed.events(journal: journal, devices: [device]))
        #expect(fresh.count == 1 && fresh[0].reset && fresh[0].run != whole[0].run && fresh[0].series[0].x.count == 1)

        // Not running: the device's latest run stays on show, and a new client gets it whole.
        device.currentRun = nil
        #expect(try feed.events(journal: journal, devices: [device]).isEmpty)
        var other = LivePlotFeed()
        let late = try decode(try other.events(journal: journal, devices: [device]))
        #expect(late.count == 1 && late[0].run == fresh[0].run && late[0].reset)
        await writer.close()
    }
}
