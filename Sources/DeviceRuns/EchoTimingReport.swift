public import BLEDiagnostics
import Foundation
public import PicoLink

/// What `hcipico rtt` measured, as text or as one JSON object whose keys follow
/// `Tests/Peers/c/att_rtt.c` (`write_cmd`: `median_ms`, `p95_ms`, `cpu_us_per_rtt`, …).
public struct EchoTimingReport: Sendable {
    /// The device's name.
    public let device: String
    /// The serial service the round trips ran over.
    public let profile: SerialProfile
    /// How long opening the link took.
    public let connect: Duration
    /// The link's ATT_MTU.
    public let mtu: Int
    /// How long finding and subscribing to the serial service took.
    public let discover: Duration
    /// Payload bytes per write.
    public let size: Int
    /// The round trips.
    public let result: GATTEchoResult
    /// Wall time from the first timed write to the last echo.
    public let wall: Duration
    /// The process's CPU time over the timed round trips (`CLOCK_PROCESS_CPUTIME_ID`).
    public let cpuNanoseconds: Int64
    /// The same from `/proc/self/stat` (nil where it cannot be read).
    public let statNanoseconds: Int64?
    /// CPU nanoseconds by thread name over the window, most first (empty where `/proc` cannot tell).
    public let threads: [(name: String, nanoseconds: Int64)]

    private var perRoundTrip: Double { Double(max(1, result.count)) }
    private var cpuMicroseconds: Double { microsecondsPerRoundTrip(cpuNanoseconds) }
    private var statMicroseconds: Double? { statNanoseconds.map(microsecondsPerRoundTrip) }

    private func microsecondsPerRoundTrip(_ nanoseconds: Int64) -> Double { Double(nanoseconds) / 1e3 / perRoundTrip }

    /// Two lines of text: the link, then the round trips and their CPU time.
    public var text: String {
        let stat = statMicroseconds.map { String(format: " (stat %.1f µs/rtt)", $0) } ?? ""
        return """
            \(device): connected in \(Self.ms(connect)) ms, ATT_MTU \(mtu), \(profile) found and subscribed in \
            \(Self.ms(discover)) ms
            RTT write command → notification, \(result.count) × \(size) bytes\(pieces): median \(Self.ms(result.median)) ms, \
            p95 \(Self.ms(result.percentile(0.95))) ms, min \(Self.ms(result.minimum)) ms, \
            max \(Self.ms(result.maximum)) ms; CPU \(String(format: "%.1f", cpuMicroseconds)) µs/rtt\(stat); \
            wall \(Self.ms(wall)) ms\(threadsText)
            """
    }

    /// " (echoes in 400 notifications)" when the peripheral split them, or nothing.
    private var pieces: String {
        result.notifications == result.count ? "" : " (echoes in \(result.notifications) notifications)"
    }

    /// "; by thread: att-… 230.1, … µs/rtt", or nothing.
    private var threadsText: String {
        guard !threads.isEmpty else { return "" }
        let parts = threads.map { "\($0.name) \(String(format: "%.1f", microsecondsPerRoundTrip($0.nanoseconds)))" }
        return "; by thread: " + parts.joined(separator: ", ") + " µs/rtt"
    }

    /// `{"name":µs per round trip,…}` for the JSON report.
    private var threadsJSON: String {
        let fields = threads.map { thread in
            "\(JSONText.quoted(thread.name)):\(String(format: "%.2f", microsecondsPerRoundTrip(thread.nanoseconds)))"
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// One JSON object.
    public var json: String {
        let stat = statMicroseconds.map { String(format: "%.2f", $0) } ?? "null"
        return """
            {"device":"\(device)","connect_ms":\(Self.ms(connect)),"mtu":\(mtu),"discover_ms":\(Self.ms(discover)),\
            "profile":\(JSONText.quoted(profile.description)),\
            "write_cmd":{"n":\(result.count),"size":\(size),"notifications":\(result.notifications),"median_ms":\(Self.ms(result.median)),\
            "p95_ms":\(Self.ms(result.percentile(0.95))),"min_ms":\(Self.ms(result.minimum)),\
            "max_ms":\(Self.ms(result.maximum)),"cpu_us_per_rtt":\(String(format: "%.2f", cpuMicroseconds)),\
            "stat_cpu_us_per_rtt":\(stat),"wall_ms":\(Self.ms(wall)),"threads_cpu_us_per_rtt":\(threadsJSON)}}
            """
    }

    private static func ms(_ nanoseconds: Int64) -> String { String(format: "%.4f", Double(nanoseconds) / 1e6) }

    private static func ms(_ duration: Duration) -> String {
        String(format: "%.2f", duration.inMilliseconds)
    }
}
