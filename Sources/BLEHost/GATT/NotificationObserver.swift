/// Watches a client's notifications and indications as they arrive, whatever their handle (for
/// statistics such as inter-arrival times); installed with `GATTClient.observeNotifications(_:)`.
/// A class: the client copies its observer out of its lock for every notification, and a class
/// existential copies as one retain where any other needs its type's value witnesses.
public protocol NotificationObserver: AnyObject, Sendable {
    /// Called on the transport's reader thread for each notification or indication, before its
    /// subscribers; it must return quickly and should not allocate (it is on the hot path).
    func notificationArrived()
}
