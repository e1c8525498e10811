/// A value behind a reference. State kept behind a lock holds continuations this way: their types are
/// resilient (their size is known only at run time), and one held inline would give the whole state a
/// layout computed at run time, so that every lock of it, on the receive path too, looks up metadata.
final class Boxed<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}
