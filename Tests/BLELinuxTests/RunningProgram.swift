import Glibc

/// A program started with posix_spawn, its standard output and error going to temporary files that
/// can be read while it runs (and its standard input, when given, read from one); the files are removed
/// when this goes away.
final class RunningProgram {
    let pid: pid_t
    private let outPath: String
    private let errPath: String

    init?(_ program: String, _ arguments: [String], input: [UInt8]? = nil) {
        func temporary() -> (CInt, String) {
            var template = Array("/tmp/hcipico-test-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            return (fd, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let (inFD, inPath) = temporary()
        let (outFD, outPath) = temporary()
        let (errFD, errPath) = temporary()
        defer {
            close(inFD)
            close(outFD)
            close(errFD)
            unlink(inPath)
        }
        self.outPath = outPath
        self.errPath = errPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            let written = input.withUnsafeBytes { write(inFD, $0.baseAddress, $0.count) }
            guard written == input.count, lseek(inFD, 0, SEEK_SET) == 0 else {
                unlink(outPath)
                unlink(errPath)
                return nil
            }
            posix_spawn_file_actions_adddup2(&actions, inFD, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outFD, 1)
        posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard inFD >= 0, outFD >= 0, errFD >= 0, posix_spawn(&pid, program, &actions, nil, argv, environ) == 0 else {
            unlink(outPath)
            unlink(errPath)
            return nil
        }
        self.pid = pid
    }

    deinit {
        unlink(outPath)
        unlink(errPath)
    }

    /// What the program wrote so far.
    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
    var stdoutBytes: [UInt8] { Self.contents(outPath) }
    var stderrBytes: [UInt8] { Self.contents(errPath) }

    /// Sends `signal` to the program.
    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the program to end; its exit status, or -1 when a signal ended it.
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }

    /// The whole of the file at `path` (empty when it cannot be read).
    static func contents(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
