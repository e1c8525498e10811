import Foundation
import PicoLink

/// `hcipico connect --timing`: when the link was open and when the first package was decoded, measured
/// from the start of the connect on the clock `PicoPackage.hostTime` uses (the decode time on the
/// reader thread, before any hop to the display).
struct ConnectTiming {
    private let started = Date().timeIntervalSince1970
    private var opened: Double?
    private var firstPackage: Double?

    /// The link is connected, the MTU exchanged and the VSP service discovered and subscribed.
    mutating func linkOpened() { opened = Date().timeIntervalSince1970 }

    mutating func observe(_ event: PicoEvent) {
        guard firstPackage == nil, case .package(let package) = event else { return }
        firstPackage = package.hostTime
    }

    /// One line for standard error.
    var summary: String {
        func ms(_ time: Double?) -> String { time.map { String(format: "%.1f ms", ($0 - started) * 1e3) } ?? "none" }
        return "timing: link open (connect, MTU, VSP subscribed) \(ms(opened)); "
            + "connect → first decoded sample \(ms(firstPackage))"
    }
}
