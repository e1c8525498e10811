import RigCore
import RunResults

extension RigService.Outcome {
    /// The table `hcipico rig` prints when it ends: a line per device (runs, complete, incomplete,
    /// packages, reconnects, state), then what became of each adapter, the forwarder, the journal, and
    /// how many log lines standard error dropped, when it dropped any.
    public func summary(journal: String, droppedLogLines: Int) -> String {
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
        if droppedLogLines > 0 {
            lines.append(
                "log: \(CountText.of(droppedLogLines, "write")) to standard error dropped (closed, full or not read)"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Right-aligned in `width`, with at least one space before it.
    private static func number(_ value: Int, _ width: Int) -> String {
        " " + TextColumn.pad(String(value), width - 1)
    }
}
