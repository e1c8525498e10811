/// The outcome of a non-blocking system call: done, or it would have blocked (`EAGAIN`), which is a
/// value and not an error.
enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

extension IOResult: Equatable where Value: Equatable {}
