import Synchronization

/// Every byte a device sent, as its channel delivered it (VSP notifications or UART reads), appended to
/// a file: the transcript `hcipico decode` reads. `append` runs on the channel's reader thread and
/// writes at once (no buffering here, as the other sinks); the first failure is kept, later bytes are
/// dropped, and `finish()` reports it.
public final class RawCapture: Sendable {
    /// The file's path.
    public let path: String
    private struct State: ~Copyable {
        var file: SinkFile?
        var failure: SinkError?
        var bytes = 0
    }
    private let state: Mutex<State>

    /// Creates `path` (an existing file only with `overwrite`).
    public init(path: String, overwrite: Bool) throws(SinkError) {
        self.path = path
        state = Mutex(State(file: try SinkFile(path: path, overwrite: overwrite)))
    }

    /// Appends `chunk`.
    public func append(_ chunk: UnsafeRawBufferPointer) {
        state.withLock { state in
            guard let file = state.file, state.failure == nil else { return }
            do throws(SinkError) {
                try file.write(bytes: Array(chunk))
                state.bytes += chunk.count
            } catch {
                state.failure = error
            }
        }
    }

    /// Bytes captured so far.
    public var bytes: Int { state.withLock { $0.bytes } }

    /// Syncs and closes the file; throws the first failure of the capture or of the sync.
    public func finish() throws(SinkError) {
        let result: Result<Void, SinkError> = state.withLock { state in
            defer {
                state.file?.close()
                state.file = nil
            }
            if let failure = state.failure { return .failure(failure) }
            do throws(SinkError) {
                try state.file?.sync()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
