import Foundation
import PicoLink

/// `--timing`: where the time from the start of a run's command to its first sample went.
struct ConnectTiming {
    private let started = Date().timeIntervalSince1970
    private var opened: Double?
    private var firstPackage: Double?

    /// The link is open (connected, MTU exchanged, the serial service subscribed).
    mutating func linkOpened() { opened = Date().timeIntervalSince1970 }

    /// Notes the first package's host time.
    mutating func observe(_ event: PicoEvent) {
        guard firstPackage == nil, case .package(let package) = event else { return }
        firstPackage = package.hostTime
    }

    /// `timing: link open … ms; connect → first decoded sample … ms`.
    var summary: String {
        func ms(_ time: Double?) -> String { time.map { String(format: "%.1f ms", ($0 - started) * 1e3) } ?? "none" }
        return "timing: link open (connect, MTU, VSP subscribed) \(ms(opened)); "
            + "connect → first decoded sample \(ms(firstPackage))"
    }
}
