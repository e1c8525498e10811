import Dispatch
import Foundation

/// Ctrl-C as an event: SIGINT is ignored by the default handler and delivered to `handler` on a queue,
/// so that a run can be aborted cleanly (`Z`) and its data kept.
final class InterruptSignal {
    private let source: any DispatchSourceSignal

    init(_ handler: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
