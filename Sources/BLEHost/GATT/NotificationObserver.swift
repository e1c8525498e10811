/// Watches a client's notifications and indications as they arrive, whatever their handle (for
/// statistics such as inter-arrival times); installed with `GATTClient.observeNotifications(_:)`.
public protocol NotificationObserver: Sendable {
    /// Called on the transport's reader thread for each notification or indication, before its
    /// subscribers; it must return quickly and should not allocate (it is on the hot path).
    func notificationArrived()
}
