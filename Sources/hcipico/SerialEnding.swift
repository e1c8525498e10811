import DeviceLinks
import Foundation
import PicoLink
import Synchronization

/// Ends the bridge once, whoever asks first (end of input, Ctrl-C, a dropped link): closes the link and
/// the pseudo-terminal and exits with the status. Later callers wait for the exit.
final class SerialEnding: Sendable {
    private let claimed = Atomic<Bool>(false)
    private let link: DeviceLink
    private let terminal: PseudoTerminal?

    init(link: DeviceLink, terminal: PseudoTerminal?) {
        self.link = link
        self.terminal = terminal
    }

    func finish(_ status: ExitStatus, _ message: String? = nil) async {
        guard !claimed.exchange(true, ordering: .acquiringAndReleasing) else {
            while true { try? await Task.sleep(for: .seconds(3600)) }
        }
        if let message { StandardError.report(message) }
        await Shutdown.bounded(.seconds(2)) { await self.link.close() }
        terminal?.close()
        // What the device sent could not all be written to standard output: not a success.
        let failedWrite = status == .success && StandardStream.finalOutputError() != nil
        Foundation.exit(failedWrite ? ExitStatus.writeFailed.rawValue : status.rawValue)
    }
}
