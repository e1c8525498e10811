import BLEHost
import BLETesting
import BLEWire
import Foundation

/// `Bench flood`: what a controller or a peer can make `HCIHost` keep. One live link on an in-memory
/// controller (which keeps nothing itself); 600,000 controller events (LE Connection Update Complete
/// for the link that nobody reads, a second LE Connection Complete for the live handle, events for
/// handles that do not exist, unknown events) and 450,000 L2CAP Connection Parameter Update Requests
/// from the peer (half within limits, applied with LE Connection Update, half refused). The resident
/// set is read after a warm-up of 5 % of each and again at the end: the growth is what the flood left
/// behind. The host's counters show that nothing was queued without bound.
enum HostFloodBench {
    static let suite = BenchSuite(
        name: "flood",
        summary: "HCIHost RSS growth under 600,000 controller events and 450,000 peer signaling requests"
    ) { json in
        try await run(json: json)
    }

    static let events = 600_000
    static let requests = 450_000
    /// Packets handed to the controller's queue before waiting for it to drain.
    static let batch = 2_000

    static func run(json: Bool) async throws {
        let controller = FakeHCIController(.init(records: false))
        var configuration = HCIHostConfiguration()
        configuration.commandTimeout = .seconds(30)
        let host = HCIHost(transport: controller, configuration: configuration)
        _ = try await host.start()
        let link = try await host.connect(
            to: BluetoothAddress(value: 0xF0_11_22_33_44_55, type: .random),
            timeout: .seconds(10)
        )
        let warmEvents = events / 20
        let warmRequests = requests / 20
        flood(controller, handle: link.handle, events: 0..<warmEvents, requests: 0..<warmRequests)
        let before = ProcessMemory.residentBytes()
        let started = ContinuousClock.now
        flood(controller, handle: link.handle, events: warmEvents..<events, requests: warmRequests..<requests)
        let took = ContinuousClock.now - started
        let after = ProcessMemory.residentBytes()
        let statistics = host.statistics
        let live = link.disconnectReason == nil
        await host.shutdown()

        let growth = Double(after - before) / 1_048_576
        let rows: [StackBench.Row] = [
            StackBench.Row(
                name: "RSS growth",
                value: growth,
                unit: "MB",
                note: "\(Int(before / 1_048_576)) -> \(Int(after / 1_048_576)) MB after the warm-up; target <= 2"
            ),
            StackBench.Row(
                name: "controller events",
                value: Double(events),
                unit: "events",
                note: "\(statistics.ignoredEvents) ignored, \(statistics.droppedLinkEvents) link events pushed out"
            ),
            StackBench.Row(
                name: "peer signaling requests",
                value: Double(requests),
                unit: "requests",
                note: "half applied, half refused; \(statistics.supersededCommands) updates superseded unsent"
            ),
            StackBench.Row(
                name: "flood rate",
                value: Double(events + requests) * 0.95 / took.inSeconds,
                unit: "pkt/s",
                note: "link \(live ? "still open" : "closed") at the end"
            ),
        ]
        let title = "flood: HCIHost under a controller and a peer that never stop (in-memory controller, one link)"
        print(json ? StackBench.renderJSON(rows, suite: "flood") : StackBench.renderTable(rows, title: title))
    }

    /// Delivers `events` controller events and `requests` signaling requests, interleaved, draining
    /// the controller's queue every `batch` packets so that only the host holds what is in flight.
    static func flood(_ controller: FakeHCIController, handle: UInt16, events: Range<Int>, requests: Range<Int>) {
        var sent = 0
        var request = requests.lowerBound
        for index in events {
            controller.deliver(.event, event(index, handle: handle))
            // Three requests for every four events.
            if index % 4 != 3, request < requests.upperBound {
                controller.l2cap(handle: handle, channel: 5, signalingRequest(request))
                request += 1
            }
            sent += 1
            if sent % batch == 0 { controller.settle() }
        }
        while request < requests.upperBound {
            controller.l2cap(handle: handle, channel: 5, signalingRequest(request))
            request += 1
            sent += 1
            if sent % batch == 0 { controller.settle() }
        }
        controller.settle()
    }

    static func event(_ index: Int, handle: UInt16) -> [UInt8] {
        switch index % 4 {
        case 0, 1:
            HCILEConnectionUpdateCompleteEvent(
                status: .success,
                connectionHandle: handle,
                connectionInterval: UInt16(6 + index % 100),
                peripheralLatency: 0,
                supervisionTimeout: 200
            ).encodedBytes
        case 2:
            HCILEConnectionCompleteEvent(
                status: .success,
                connectionHandle: index % 8 == 2 ? handle : 0x0EFF,
                role: 0,
                peerAddressType: 1,
                peerAddress: BluetoothAddress(value: 0xC0_00_00_00_00_00 | UInt64(index & 0xFFFF)),
                connectionInterval: 6,
                peripheralLatency: 0,
                supervisionTimeout: 200,
                centralClockAccuracy: 0
            ).encodedBytes
        default:
            // A vendor-specific event the host does not know.
            [0xFF, 4, UInt8(truncatingIfNeeded: index), 1, 2, 3]
        }
    }

    /// A Connection Parameter Update Request: within limits on even `index`, an invalid supervision
    /// timeout on odd.
    static func signalingRequest(_ index: Int) -> [UInt8] {
        L2CAPConnectionParameterUpdateRequest(
            identifier: UInt8(truncatingIfNeeded: index % 255 + 1),
            intervalMin: 24,
            intervalMax: 40,
            latency: index.isMultiple(of: 2) ? 0 : 4,
            timeout: index.isMultiple(of: 2) ? 400 : 10
        ).encodedBytes
    }
}
