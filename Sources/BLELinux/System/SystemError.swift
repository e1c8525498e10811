internal import Glibc

/// A failed system call: which one, and the `errno` it set.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public let syscall: Syscall
    public let errno: Int32

    public init(syscall: Syscall, errno: Int32) {
        self.syscall = syscall
        self.errno = errno
    }

    /// The symbolic name of `errno` (`EBUSY`), or its number where the name is not in the table.
    public var errnoName: String { Self.names[errno] ?? "errno \(errno)" }

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
