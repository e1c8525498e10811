import Coordination

/// Starts the per-link readers and blocking connects on threads of their own (`Threads`), with a test's
/// mocked system calls following its work onto them.
enum ThreadSpawner {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes are kept).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        #if ENABLE_MOCKING
        // The mocked system calls of a test follow its work onto the threads it starts.
        let driver = MockingDriver.current
        let work: @Sendable () -> Void = { MockingDriver.$current.withValue(driver) { body() } }
        #else
        let work = body
        #endif
        let code = Threads.start(name: name, work)
        guard code == 0 else { throw SystemError(syscall: .pthreadCreate, errno: code) }
    }
}
