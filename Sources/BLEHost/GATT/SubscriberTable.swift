/// A client's subscribers by characteristic value handle, in a short array searched from the front: a
/// link has a few subscribed handles, and `GATTClient.deliver` looks one up for every notification
/// without hashing.
struct SubscriberTable {
    private var entries: [(handle: UInt16, subscribers: [GATTClient.Subscriber])] = []

    /// The subscribers of `handle`, or nil when it has none; setting nil or an empty list removes them.
    subscript(handle: UInt16) -> [GATTClient.Subscriber]? {
        get {
            for index in entries.indices where entries[index].handle == handle { return entries[index].subscribers }
            return nil
        }
        set {
            let index = entries.firstIndex { $0.handle == handle }
            switch (index, newValue) {
            case (let index?, let list?) where !list.isEmpty: entries[index].subscribers = list
            case (let index?, _): entries.remove(at: index)
            case (nil, let list?) where !list.isEmpty: entries.append((handle, list))
            case (nil, _): break
            }
        }
    }

    /// Adds `subscriber` after the other subscribers of `handle`.
    mutating func append(_ subscriber: GATTClient.Subscriber, to handle: UInt16) {
        self[handle] = (self[handle] ?? []) + [subscriber]
    }

    /// The handles that have subscribers, in the order they were first subscribed.
    var handles: [UInt16] { entries.map(\.handle) }

    /// Every subscriber of every handle.
    var all: [GATTClient.Subscriber] { entries.flatMap(\.subscribers) }
}
