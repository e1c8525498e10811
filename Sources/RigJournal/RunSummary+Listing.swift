import Foundation
import PicoLink
import RunResults

extension RunSummary {
    /// The column heads of `listingRow`, as `hcipico runs` prints them.
    public static let listingHeader =
        "   id  device          script            start                duration  packages  state       reason"

    /// One line of the run listing: id, device, script file, local start, duration, packages, state,
    /// and the reason it ended (and that its packages were pruned, when they were).
    public var listingRow: String {
        let duration = self.duration.map { String(format: "%.1f s", $0) } ?? "-"
        let script = (scriptName as NSString).lastPathComponent
        let notes = [reason, prunedAt.map { _ in "(packages pruned after forwarding)" }].compactMap { $0 }
        return TextColumn.pad(String(id), 5) + "  " + TextColumn.pad(device, 15, left: true) + " "
            + TextColumn.pad(script, 17, left: true) + " " + RunFilter.localTime(startedAt) + "  "
            + TextColumn.pad(duration, 9) + " " + TextColumn.pad(String(packages), 9) + "  "
            + TextColumn.pad(state, 10, left: true) + "  " + notes.joined(separator: " ")
    }

    /// The run as one JSON object on one line, keys in a fixed order (`id` first), absent values null.
    public var jsonLine: String {
        let quoted = JSONText.quoted
        let fields = [
            "\"id\":\(id)", "\"uuid\":\(quoted(uuid))", "\"device\":\(quoted(device))",
            "\"script\":\(quoted(scriptName))", "\"title\":\(quoted(title))",
            "\"started_at\":\(startedAt)", "\"ended_at\":\(endedAt.map { "\($0)" } ?? "null")",
            "\"packages\":\(packages)", "\"overflowed\":\(overflowed)", "\"state\":\(quoted(state))",
            "\"reason\":\(reason.map(quoted) ?? "null")", "\"rssi\":\(rssi.map { "\($0)" } ?? "null")",
            "\"pruned_at\":\(prunedAt.map { "\($0)" } ?? "null")",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
