import BLEHost
import BLELinux

extension ConnectedDevice {
    /// Applies `request` over whichever path carries the link: hcipico's own host, or a raw HCI socket
    /// on the kernel's adapter. Prints one `hcipico: link …` line per step on stderr; a refusal is a
    /// warning, never a failure. Nil when nothing could be tried (simulator, no raw socket).
    func tune(_ request: LinkTuningRequest) async -> LinkTuningReport? {
        let report: LinkTuningReport
        switch path {
        case .simulator(let kind, _):
            StandardError.report("link: sim:\(kind.rawValue) has no radio link; --link \(request.name) not applied")
            return nil
        case .kernel(let socket, let adapter, _):
            let target: KernelLinkTuning
            do {
                target = try KernelLinkTuning.open(for: socket, adapter: adapter)
            } catch {
                StandardError.report("link: cannot tune over the kernel path: \(error.message)")
                return nil
            }
            report = await LinkTuner().apply(request, to: target)
            target.close()
        case .host(_, let connection):
            report = await LinkTuner().apply(request, to: connection)
        }
        for line in report.lines { StandardError.report(line) }
        return report
    }

    /// The link's RSSI now (HCI Read RSSI through whichever path carries it); nil for a simulator or
    /// when the controller cannot say.
    func readRSSI() async -> Int? {
        switch path {
        case .simulator: return nil
        case .kernel(let socket, let adapter, _):
            guard let target = try? KernelLinkTuning.open(for: socket, adapter: adapter) else { return nil }
            defer { target.close() }
            return await target.readRSSI()
        case .host(_, let connection):
            return await connection.readRSSI()
        }
    }
}
