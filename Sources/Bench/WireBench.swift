import BLEWire

/// `Bench wire`: ATT notification decode, the borrowed `View` against the owning `ATTPDU` decode, on
/// 20- and 244-octet values; and HCI Number Of Completed Packets decode. Side by side in one run.
enum WireBench {
    static let suite = BenchSuite(
        name: "wire",
        summary: "ATT notification decode (borrowed view vs owned PDU), HCI event decode"
    ) { json in
        var rows: [(name: String, nanoseconds: Double)] = []
        for size in [20, 244] {
            let pdu = [0x1B, 0x12, 0x00] + (0..<size).map { UInt8(truncatingIfNeeded: $0) }
            rows.append(("notification \(size) B, View(pdu:)", measure(pdu, decodeView)))
            rows.append(("notification \(size) B, ATTPDU(bytes:)", measure(pdu, decodeOwned)))
        }
        let completed = HCINumberOfCompletedPacketsEvent(handles: [.init(connectionHandle: 1, numCompletedPackets: 2)])
        rows.append(("Number Of Completed Packets, View(event:)", measure(completed.encodedBytes, decodeEventView)))
        rows.append(("Number Of Completed Packets, HCIEvent(bytes:)", measure(completed.encodedBytes, decodeEvent)))
        if json {
            let entries = rows.map { "{\"name\":\"\($0.name)\",\"ns_per_op\":\(($0.nanoseconds * 10).rounded() / 10)}" }
            print("{\"suite\":\"wire\",\"results\":[\(entries.joined(separator: ","))]}")
        } else {
            print("wire: decode cost per PDU (median of 5 runs of 1,000,000)")
            for row in rows {
                print(
                    "  \(row.name + String(repeating: " ", count: max(1, 52 - row.name.count))) \(format(row.nanoseconds)) ns"
                )
            }
            for size in [20, 244] {
                let view = rows.first { $0.name == "notification \(size) B, View(pdu:)" }!.nanoseconds
                let owned = rows.first { $0.name == "notification \(size) B, ATTPDU(bytes:)" }!.nanoseconds
                print("  \(size) B: owned / view = \(format(owned / view))×")
            }
        }
    }

    static func format(_ value: Double) -> String {
        let scaled = (value * 10).rounded() / 10
        return "\(scaled)"
    }

    /// Median nanoseconds per call of `decode` over the buffer; the checksum keeps the work alive.
    static func measure(_ bytes: [UInt8], _ decode: (UnsafeRawBufferPointer) -> Int) -> Double {
        let iterations = 1_000_000
        var samples: [Double] = []
        var checksum = 0
        let clock = ContinuousClock()
        bytes.withUnsafeBytes { buffer in
            for _ in 0..<5 {
                let start = clock.now
                for _ in 0..<iterations { checksum &+= decode(buffer) }
                let elapsed = start.duration(to: clock.now)
                samples.append(elapsed.inNanoseconds / Double(iterations))
            }
        }
        if checksum == 42 { print("") }
        return samples.sorted()[samples.count / 2]
    }

    static func decodeView(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard let view = try? ATTHandleValueNotification.View(pdu: buffer) else { return -1 }
        return Int(view.handle) &+ view.value.count &+ Int(view.value[view.value.count - 1])
    }

    static func decodeOwned(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard case .handleValueNotification(let pdu) = try? ATTPDU(bytes: buffer) else { return -1 }
        return Int(pdu.handle) &+ pdu.value.count &+ Int(pdu.value[pdu.value.count - 1])
    }

    static func decodeEventView(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard let view = try? HCINumberOfCompletedPacketsEvent.View(event: buffer) else { return -1 }
        return Int(view[0].completedPackets)
    }

    static func decodeEvent(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard case .numberOfCompletedPackets(let event) = try? HCIEvent(bytes: buffer) else { return -1 }
        return Int(event.handles[0].numCompletedPackets)
    }
}
