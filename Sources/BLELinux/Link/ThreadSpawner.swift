internal import CBlueZ
internal import Glibc

/// Starts detached threads for the per-link readers and for blocking connects.
enum ThreadSpawner {
    private final class Box {
        let body: () -> Void
        let name: String
        init(name: String, body: @escaping () -> Void) {
            self.body = body
            self.name = name
        }
    }

    /// Runs `body` on a new detached thread named `name` (at most 15 bytes are kept).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        #if ENABLE_MOCKING
        // The mocked system calls of a test follow its work onto the threads it starts.
        let driver = MockingDriver.current
        let work: () -> Void = { MockingDriver.$current.withValue(driver) { body() } }
        #else
        let work = body
        #endif
        let box = Unmanaged.passRetained(Box(name: name, body: work))
        var thread = pthread_t()
        let code = pthread_create(
            &thread,
            nil,
            { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                _ = cbluez_set_thread_name(box.name)
                box.body()
                return nil
            },
            box.toOpaque()
        )
        guard code == 0 else {
            box.release()
            throw SystemError(syscall: .pthreadCreate, errno: code)
        }
        pthread_detach(thread)
    }
}
