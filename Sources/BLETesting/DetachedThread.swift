#if canImport(Glibc)
import Glibc
#endif

/// Starts `body` on a new detached POSIX thread: the reader threads of the in-memory transports, and the
/// peer threads of tests and benchmarks. Returns false if the thread could not be created.
@discardableResult
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread,
        nil,
        { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        },
        context
    )
    guard status == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        return false
    }
    pthread_detach(thread)
    return true
}
