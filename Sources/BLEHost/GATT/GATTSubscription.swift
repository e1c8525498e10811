/// A live subscription to one characteristic's notifications or indications; pass it to
/// `GATTClient.unsubscribe` to end it.
public struct GATTSubscription: Sendable, Hashable {
    let id: UInt64
    /// The characteristic subscribed to.
    public let characteristic: GATTCharacteristic
    /// Whether the subscription receives notifications or indications.
    public let kind: GATTSubscriptionKind
}

/// Values of one subscription as an ordered `AsyncSequence` (the non-hot path: each value is copied
/// into an array). It finishes when its subscription is passed to `GATTClient.unsubscribe`, and ends
/// with an error when the subscription ends without it.
public struct GATTNotificationStream: AsyncSequence, Sendable {
    /// One value, copied out of its notification or indication.
    public typealias Element = [UInt8]
    /// The subscription feeding the stream. Passing it to `GATTClient.unsubscribe` stops the values and
    /// finishes the stream; cancelling the iterating task (or dropping the stream) also unsubscribes.
    public let subscription: GATTSubscription
    let stream: AsyncThrowingStream<[UInt8], any Error>

    /// An iterator over the values in arrival order. The buffer is unbounded: values wait there until read.
    public func makeAsyncIterator() -> AsyncThrowingStream<[UInt8], any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }
}
