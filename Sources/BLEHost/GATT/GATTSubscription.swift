/// A live subscription to one characteristic's notifications or indications; pass it to
/// `GATTClient.unsubscribe` to end it.
public struct GATTSubscription: Sendable, Hashable {
    let id: UInt64
    public let characteristic: GATTCharacteristic
    public let kind: GATTSubscriptionKind
}

/// Values of one subscription as an ordered `AsyncSequence` (the non-hot path: each value is copied
/// into an array). It ends with an error when the subscription ends without `unsubscribe`.
public struct GATTNotificationStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public let subscription: GATTSubscription
    let stream: AsyncThrowingStream<[UInt8], any Error>

    public func makeAsyncIterator() -> AsyncThrowingStream<[UInt8], any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }
}
