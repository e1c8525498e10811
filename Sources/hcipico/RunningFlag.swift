import Synchronization

/// A flag one task sets and others read (whether a run is in progress).
final class RunningFlag: Sendable {
    private let current: Mutex<Bool>

    init(_ value: Bool = false) { current = Mutex(value) }

    var value: Bool {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
