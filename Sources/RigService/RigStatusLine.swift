import RigCore
import RigJournal

/// The rig's one-line state for systemd: `3 devices: 1 running, 2 idle, 0 away; 1234 packages
/// committed`. The count is the journal's, so it never includes a package that is not yet durable.
enum RigStatusLine {
    static func text(_ rig: Rig, writer: JournalWriter) -> String {
        let devices = rig.snapshots
        let running = devices.filter { if case .running = $0.state { true } else { false } }.count
        let away = devices.filter { !$0.connected }.count
        return
            "\(CountText.of(devices.count, "device")): \(running) running, \(devices.count - running - away) idle, \(away) away; "
            + "\(writer.committedPackages) packages committed"
    }
}
