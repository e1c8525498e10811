internal import CBlueZ
internal import Glibc

/// An owned file descriptor (a socket, an epoll instance, an eventfd, a tty), closed exactly once: by
/// `close()`, or when the value goes away.
struct OwnedDescriptor: ~Copyable {
    let rawValue: CInt

    init(rawValue: CInt) {
        precondition(rawValue >= 0, "a descriptor is not negative")
        self.rawValue = rawValue
    }

    /// Opens a socket (always close-on-exec).
    static func socket(domain: CInt, type: CInt, protocol proto: CInt) throws(SystemError) -> OwnedDescriptor {
        let fd = try blockingSyscall(.socket) { system_socket(domain, type | CInt(SOCK_CLOEXEC.rawValue), proto) }
        return OwnedDescriptor(rawValue: fd)
    }

    /// Closes the descriptor now. `EINTR` is not retried: Linux has released the descriptor already.
    consuming func close() throws(SystemError) {
        let fd = rawValue
        discard self
        try Self.close(fd)
    }

    deinit { try? Self.close(rawValue) }

    private static func close(_ fd: CInt) throws(SystemError) {
        guard system_close(fd) == -1 else { return }
        let code = Glibc.errno
        precondition(code != EBADF, "close(\(fd)) of a descriptor that is not open")
        if code != EINTR { throw SystemError(syscall: .close, errno: code) }
    }

    /// Sets `O_NONBLOCK`.
    func setNonBlocking() throws(SystemError) {
        let flags = try blockingSyscall(.fcntl) { system_fcntl(rawValue, F_GETFL, 0) }
        _ = try blockingSyscall(.fcntl) { system_fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Clears `O_NONBLOCK`: reads wait; writes that must not wait pass `MSG_DONTWAIT` themselves.
    func setBlocking() throws(SystemError) {
        let flags = try blockingSyscall(.fcntl) { system_fcntl(rawValue, F_GETFL, 0) }
        _ = try blockingSyscall(.fcntl) { system_fcntl(rawValue, F_SETFL, flags & ~O_NONBLOCK) }
    }

    func bind<Address>(_ address: Address) throws(SystemError) {
        var address = address
        _ = try blockingSyscall(.bind) {
            withUnsafeBytes(of: &address) { system_bind(rawValue, $0.baseAddress!, socklen_t($0.count)) }
        }
    }

    /// Connects; `.wouldBlock` when a non-blocking connect is in progress (`EINPROGRESS`).
    func connect(to address: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Void> {
        do throws(SystemError) {
            _ = try blockingSyscall(.connect) {
                system_connect(rawValue, address.baseAddress!, socklen_t(address.count))
            }
            return .processed(())
        } catch  where error.errno == EINPROGRESS {
            return .wouldBlock
        }
    }

    func setOption<Value>(level: CInt, name: CInt, _ value: Value) throws(SystemError) {
        var value = value
        _ = try blockingSyscall(.setsockopt) {
            withUnsafeBytes(of: &value) {
                system_setsockopt(rawValue, level, name, $0.baseAddress!, socklen_t($0.count))
            }
        }
    }

    /// Reads an option into `initial` (which also gives its size) and returns it with the length the
    /// kernel wrote.
    func option<Value>(level: CInt, name: CInt, initial: Value) throws(SystemError) -> (value: Value, length: Int) {
        var value = initial
        var length = socklen_t(MemoryLayout<Value>.size)
        _ = try blockingSyscall(.getsockopt) {
            withUnsafeMutableBytes(of: &value) { system_getsockopt(rawValue, level, name, $0.baseAddress!, &length) }
        }
        return (value, Int(length))
    }

    /// The socket's own address (`getsockname`), read into `initial` (which also gives its size).
    func localAddress<Address>(initial: Address) throws(SystemError) -> Address {
        var address = initial
        var length = socklen_t(MemoryLayout<Address>.size)
        _ = try blockingSyscall(.getsockname) {
            withUnsafeMutableBytes(of: &address) { system_getsockname(rawValue, $0.baseAddress!, &length) }
        }
        return address
    }

    /// `ioctl` with a structure that the kernel reads and writes.
    func ioctl<Value>(_ request: UInt, _ value: inout Value) throws(SystemError) {
        _ = try blockingSyscall(.ioctl) {
            withUnsafeMutableBytes(of: &value) { system_ioctl(rawValue, request, $0.baseAddress!, $0.count) }
        }
    }

    /// `ioctl` with an integer argument passed by value.
    func ioctl(_ request: UInt, value: UInt) throws(SystemError) {
        _ = try blockingSyscall(.ioctl) { system_ioctl(rawValue, request, value: value) }
    }

    /// `ioctl` with a caller-provided buffer.
    func ioctl(_ request: UInt, buffer: UnsafeMutableRawBufferPointer) throws(SystemError) {
        _ = try blockingSyscall(.ioctl) { system_ioctl(rawValue, request, buffer.baseAddress!, buffer.count) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try retryingSyscall(.read) { system_read(rawValue, buffer.baseAddress!, buffer.count) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try retryingSyscall(.write) { system_write(rawValue, bytes.baseAddress!, bytes.count) }
    }

    /// `send` with `MSG_NOSIGNAL` (a peer that has gone is `EPIPE`, not a `SIGPIPE` that ends the
    /// process), and with `MSG_DONTWAIT` when `dontWait` (a socket that is itself blocking).
    func send(_ bytes: UnsafeRawBufferPointer, dontWait: Bool = false) throws(SystemError) -> IOResult<Int> {
        let flags = CInt(MSG_NOSIGNAL) | (dontWait ? CInt(MSG_DONTWAIT) : 0)
        return try retryingSyscall(.send) { system_send(rawValue, bytes.baseAddress!, bytes.count, flags) }
    }

    func shutdown() throws(SystemError) {
        _ = try blockingSyscall(.shutdown) { system_shutdown(rawValue, CInt(SHUT_RDWR)) }
    }
}
