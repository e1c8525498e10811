internal import Glibc

/// A failed system call: which one, and the `errno` it set.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed.
    public let syscall: Syscall
    /// The `errno` it set.
    public let errno: Int32

    /// A failure of `syscall` with `errno`.
    public init(syscall: Syscall, errno: Int32) {
        self.syscall = syscall
        self.errno = errno
    }

    /// The symbolic name of `errno` (`EBUSY`), or its number where the name is not in the table.
    public var errnoName: String { Self.names[errno] ?? "errno \(errno)" }

    /// The call, `strerror`'s text and the symbolic name: `connect failed: Connection refused (ECONNREFUSED)`.
    public var description: String {
        let text = String(cString: strerror(errno))
        return "\(syscall.rawValue) failed: \(text) (\(errnoName))"
    }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EFAULT: "EFAULT", EBUSY: "EBUSY",
        ENODEV: "ENODEV", EINVAL: "EINVAL", ENOTTY: "ENOTTY", EPIPE: "EPIPE", ENOTSOCK: "ENOTSOCK",
        ENOPROTOOPT: "ENOPROTOOPT", EPROTONOSUPPORT: "EPROTONOSUPPORT", EOPNOTSUPP: "EOPNOTSUPP",
        EAFNOSUPPORT: "EAFNOSUPPORT", EADDRINUSE: "EADDRINUSE", EADDRNOTAVAIL: "EADDRNOTAVAIL",
        ENETDOWN: "ENETDOWN", ENETUNREACH: "ENETUNREACH", ECONNABORTED: "ECONNABORTED",
        ECONNRESET: "ECONNRESET", EISCONN: "EISCONN", ENOTCONN: "ENOTCONN", ETIMEDOUT: "ETIMEDOUT",
        ECONNREFUSED: "ECONNREFUSED", EHOSTDOWN: "EHOSTDOWN", EHOSTUNREACH: "EHOSTUNREACH",
        EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS", ERFKILL: "ERFKILL",
    ]
}
