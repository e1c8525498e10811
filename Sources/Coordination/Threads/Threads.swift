#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the package starts a thread, and the one way it waits for a blocking call.
///
/// Threads are detached POSIX threads, named (as `ps -L` and `top -H` show them) from the thread itself
/// through `/proc/thread-self/comm`: a link's reader, a journal's writer, a simulated device's UART, the
/// signal watcher. A blocking call that a task must wait for (a line at the console's prompt, a passkey
/// typed at the terminal) runs on a thread of its own through `blocking(name:_:)`, off the cooperative pool.
public enum Threads {
    /// Starts `body` on a new detached thread named `name` (the kernel keeps 15 bytes of it). Returns 0, or
    /// the error number of `pthread_create` when no thread could be made.
    @discardableResult
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(
            &thread,
            nil,
            { raw in
                guard let raw else { return nil }
                let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
                Threads.nameCurrent(start.name)
                start.body()
                return nil
            },
            context
        )
        guard code == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            return code
        }
        pthread_detach(thread)
        return 0
    }

    /// Runs `call` on a thread of its own named `name` and returns its result; nil at once when the
    /// calling task is cancelled first (the call then ends whenever it ends, its result unused) or when
    /// no thread could be made.
    public static func blocking<Result: Sendable>(
        name: String,
        _ call: @escaping @Sendable () -> Result
    ) async -> Result? {
        let answer = Latch<Result?>()
        return await withTaskCancellationHandler {
            guard !Task.isCancelled, start(name: name, { answer.settle(call()) }) == 0 else { return nil }
            return await answer.wait()
        } onCancel: {
            answer.settle(nil)
        }
    }

    /// What a new thread runs, handed to it through `pthread_create`'s argument.
    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Names the calling thread (best effort: a system without `/proc` keeps the process's name).
    private static func nameCurrent(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}
