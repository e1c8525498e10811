internal import Glibc

/// Runs one system call the way every call in this module runs: `EINTR` is retried, `EAGAIN` comes
/// back as `.wouldBlock`, any other failure is thrown as a `SystemError` naming the call and `errno`.
///
/// `EBADF` and `EFAULT` mean this module passed a closed descriptor or a bad pointer: a bug here, not a
/// condition of the system, so they stop the program.
@inline(__always)
func retryingSyscall<Result: FixedWidthInteger>(
    _ syscall: Syscall,
    _ body: () -> Result
) throws(SystemError) -> IOResult<Result> {
    while true {
        let result = body()
        if result != -1 { return .processed(result) }
        let code = Glibc.errno
        switch code {
        case EINTR:
            continue
        case EAGAIN:
            return .wouldBlock
        case EBADF, EFAULT:
            preconditionFailure(
                "\(syscall.rawValue) failed with \(SystemError(syscall: syscall, errno: code).errnoName)"
            )
        default:
            throw SystemError(syscall: syscall, errno: code)
        }
    }
}

/// Runs a system call that never returns `EAGAIN` in the way it is used (socket, bind, ioctl…).
@inline(__always)
func blockingSyscall<Result: FixedWidthInteger>(
    _ syscall: Syscall,
    _ body: () -> Result
) throws(SystemError) -> Result {
    switch try retryingSyscall(syscall, body) {
    case .processed(let value): return value
    case .wouldBlock: throw SystemError(syscall: syscall, errno: EAGAIN)
    }
}

/// The outcome of a non-blocking system call: done, or it would have blocked (`EAGAIN`), which is a
/// value and not an error.
enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

extension IOResult: Equatable where Value: Equatable {}
