import BLEHost

/// What the reader thread does with the bytes of one `read`: hands them on and says whether to go on.
/// It runs on the reader thread only, and must not keep `bytes` past the call.
typealias Delivery = @Sendable (_ bytes: UnsafeRawBufferPointer) -> TransportError?
