import BLEHost
import BLELinux
import BLETesting
import Foundation
import PicoLink
import PicoSimulator
import Synchronization

/// `Bench serial`: a 100 kB random stream through `SerialLink` and the simulated HM-10 (socketpair, ATT
/// MTU 23, 256-byte receive FIFO) and back, per write strategy: every value a write with response, writes
/// without response with a barrier every `window` bytes, and unpaced writes without response. Two UARTs:
/// unlimited (the echo is as fast as the host reads) and 10 000 B/s (≈ 100 kbaud). Reported: time, the
/// round-trip rate, bytes the module dropped, and whether what came back equals what was sent.
enum SerialBench {
    static let suite = BenchSuite(name: "serial", summary: "SerialLink through the HM-10 simulator, per write pacing") {
        json in
        let payload = (0..<102_400).map { _ in UInt8.random(in: 0...255) }
        let small = Array(payload.prefix(10_240))
        let strategies: [(name: String, window: Int?)] = [
            ("requests", 0), ("barrier/40", 40), ("barrier/80", 80), ("barrier/160", 160), ("barrier/240", 240),
            ("unpaced", nil),
        ]
        if !json { print("serial: HM-10 simulator, socketpair, ATT_MTU 23, 256-byte FIFO, best of 3") }
        for (uart, data) in [(nil, payload), (10_000, small)] as [(Int?, [UInt8])] {
            for (name, window) in strategies {
                var best = Double.infinity
                var worstDropped = 0
                var exact = true
                for _ in 0..<3 {
                    let run = try await roundTrip(data, uart: uart, window: window)
                    best = min(best, run.seconds)
                    worstDropped = max(worstDropped, run.dropped)
                    exact = exact && run.exact
                }
                let uartName = uart.map { "\($0) B/s" } ?? "unlimited"
                let rate = Double(data.count) / best
                if json {
                    print(
                        "{\"suite\":\"serial\",\"uart\":\"\(uartName)\",\"strategy\":\"\(name)\",\"bytes\":\(data.count),"
                            + "\"seconds\":\(best),\"bytes_per_s\":\(Int(rate)),\"dropped\":\(worstDropped),\"exact\":\(exact)}"
                    )
                } else {
                    print(
                        "UART \(uartName.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                            + "\(name.padding(toLength: 11, withPad: " ", startingAt: 0))  \(data.count / 1024) kB  "
                            + "\(String(format: "%.3f", best)) s  \(String(format: "%.1f", rate / 1000)) kB/s  "
                            + "dropped \(worstDropped)  \(exact ? "byte-exact" : "DIFFERS")"
                    )
                }
            }
        }
        let (perNotification, notifications) = try await receiveAllocations()
        if json {
            print(
                "{\"suite\":\"serial\",\"case\":\"receive\",\"notifications\":\(notifications),\"allocations_per_notification\":\(perNotification)}"
            )
        } else {
            print(
                "receive: \(notifications) notifications of 20 B → SerialLink → sink: \(String(format: "%.3f", perNotification)) heap allocations each (whole process)"
            )
        }
    }

    /// Heap allocations per notification on the receive path alone: the module's server notifies
    /// directly (no writes), the link's sink only counts.
    static func receiveAllocations() async throws -> (Double, Int) {
        let (host, device) = try UnixSocketATTTransport.makePair()
        let peripheral = SimulatedHM10Peripheral(transport: device)
        try peripheral.start()
        defer { peripheral.close() }
        let client = try await GATTClient.connect(transport: host)
        let received = Atomic<Int>(0)
        _ = try await SerialLink.open(client: client) { value in received.add(value.count, ordering: .relaxed) }
        let count = 100_000
        let value = [UInt8](repeating: 0x5A, count: 20)
        AllocationCount.start()
        try value.withUnsafeBytes { bytes in
            for _ in 0..<count { _ = try peripheral.server.notify(peripheral.dataHandle, value: bytes) }
        }
        while received.load(ordering: .relaxed) < count * 20 { try await Task.sleep(for: .microseconds(200)) }
        let allocations = AllocationCount.stop()
        return (Double(allocations) / Double(count), count)
    }

    struct Run {
        let seconds: Double
        let dropped: Int
        let exact: Bool
    }

    /// One round trip; `window` nil = writes without response with no pacing at all.
    static func roundTrip(_ data: [UInt8], uart: Int?, window: Int?) async throws -> Run {
        let properties: GATTCharacteristicProperties =
            window == nil ? [.writeWithoutResponse, .notify] : [.read, .write, .writeWithoutResponse, .notify]
        let configuration = HM10Configuration(uartBytesPerSecond: uart, dataProperties: properties)
        let (host, device) = try UnixSocketATTTransport.makePair()
        let peripheral = SimulatedHM10Peripheral(transport: device, configuration: configuration)
        try peripheral.start()
        defer { peripheral.close() }
        let client = try await GATTClient.connect(transport: host)
        let received = Mutex<[UInt8]>([])
        received.withLock { $0.reserveCapacity(data.count) }
        let link = try await SerialLink.open(
            client: client,
            window: window ?? 0,
            bytesPerSecond: 1_000_000_000
        ) { value in received.withLock { $0.append(contentsOf: value) } }
        let start = ContinuousClock.now
        try await link.send(data)
        // Done when everything came back, or when nothing more arrives for 200 ms (bytes were dropped).
        var last = (count: -1, at: ContinuousClock.now)
        while true {
            let count = received.withLock { $0.count }
            if count >= data.count { break }
            if count != last.count {
                last = (count, .now)
            } else if last.at.duration(to: .now) > .milliseconds(200) {
                break
            }
            try await Task.sleep(for: .microseconds(200))
        }
        let elapsed = start.duration(to: .now)
        let seconds = elapsed.inSeconds
        return Run(
            seconds: seconds,
            dropped: peripheral.statistics.droppedBytes,
            exact: received.withLock { $0 } == data
        )
    }
}
