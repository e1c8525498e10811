internal import CBlueZ
internal import Glibc
import Synchronization

/// Cancels a connect in progress from another thread (an eventfd the connect also polls).
final class ConnectCanceller: Sendable {
    private let wakeup: OwnedDescriptor
    private let cancelled = Atomic<Bool>(false)

    init() throws(SystemError) {
        let flags = CInt(EFD_CLOEXEC | EFD_NONBLOCK)
        wakeup = OwnedDescriptor(rawValue: try blockingSyscall(.eventfd) { system_eventfd(0, flags) })
    }

    var descriptor: CInt { wakeup.rawValue }
    var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }

    func cancel() {
        cancelled.store(true, ordering: .sequentiallyConsistent)
        var one: UInt64 = 1
        _ = try? withUnsafeBytes(of: &one) { bytes throws(SystemError) in try wakeup.write(bytes) }
    }
}
