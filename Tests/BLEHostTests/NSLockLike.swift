import Synchronization

/// A minimal lock for test recorders.
final class NSLockLike: Sendable {
    private let mutex = Mutex(())
    func locked<T>(_ body: () -> T) -> T { mutex.withLock { _ in body() } }
}
