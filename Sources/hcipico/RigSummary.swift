import RigCore

/// The table `hcipico rig` prints when it ends: one line per device.
struct RigSummary {
    let snapshots: [DeviceSnapshot]
    let journal: String

    func print() {
        var lines = ["device            runs  complete  incomplete  packages  reconnects  state"]
        for device in snapshots {
            lines.append(
                Self.pad(device.name, 16) + Self.right(device.runs, 6) + Self.right(device.completeRuns, 10)
                    + Self.right(device.incompleteRuns, 12) + Self.right(device.packages, 10)
                    + Self.right(device.reconnects, 12) + "  \(device.state)"
            )
        }
        lines.append("journal: \(journal)")
        Swift.print(lines.joined(separator: "\n"))
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func right(_ number: Int, _ width: Int) -> String {
        let text = String(number)
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }
}
