import RigCore
import RigModel
import RunResults

/// The table `hcipico rig` prints when it ends: one line per device.
struct RigSummary {
    let snapshots: [DeviceSnapshot]
    /// One line per adapter or controller the rig watched (what happened to it).
    let adapters: [String]
    /// The forwarder's line, when one ran.
    let fleet: [String]
    let journal: String

    func print() {
        var lines = ["device            runs  complete  incomplete  packages  reconnects  state"]
        for device in snapshots {
            lines.append(
                TextColumn.pad(device.name, 15, left: true) + " " + Self.number(device.runs, 6)
                    + Self.number(device.completeRuns, 10) + Self.number(device.incompleteRuns, 12)
                    + Self.number(device.packages, 10) + Self.number(device.reconnects, 12) + "  \(device.state)"
            )
        }
        lines += adapters.map { "adapter: \($0)" }
        lines += fleet
        lines.append("journal: \(journal)")
        let dropped = StandardError.dropped.load(ordering: .relaxed)
        if dropped > 0 {
            lines.append("log: \(CountText.of(dropped, "write")) to standard error dropped (closed, full or not read)")
        }
        Swift.print(lines.joined(separator: "\n"))
    }

    /// Right-aligned in `width`, with at least one space before it.
    private static func number(_ value: Int, _ width: Int) -> String {
        " " + TextColumn.pad(String(value), width - 1)
    }
}
