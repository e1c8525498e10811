import CSystemd
import Foundation

/// Tells systemd how the rig stands (sd_notify): READY once the journal is open and the supervisors
/// run, STATUS lines, WATCHDOG pings while the journal keeps committing, RELOADING on SIGHUP, STOPPING
/// on the way out. Without `NOTIFY_SOCKET` (not under systemd) every call does nothing.
struct ServiceNotifier: Sendable {
    /// Whether systemd listens.
    var isActive: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil }

    func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    func status(_ text: String) { send("STATUS=\(text)") }

    /// A watchdog ping with the status it is sent with.
    func alive(status: String) { send("WATCHDOG=1\nSTATUS=\(status)") }

    func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let micros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        send("RELOADING=1\nMONOTONIC_USEC=\(micros)")
    }

    func stopping(_ why: String) { send("STOPPING=1\nSTATUS=stopping: \(why)") }

    /// Half of `WatchdogSec=` when systemd asks for pings, else nil.
    var watchdogInterval: Duration? {
        var micros: UInt64 = 0
        guard sd_watchdog_enabled(0, &micros) > 0, micros > 0 else { return nil }
        return .microseconds(Int64(micros / 2))
    }

    private func send(_ text: String) {
        guard isActive else { return }
        _ = sd_notify(0, text)
    }
}
