import ArgumentParser
import BLEHost
import Coordination
import DeviceLinks
import Synchronization

/// Prints the values of one subscription as they arrive (on the link's reader thread, in order, one
/// flushed line each) and says why the subscription ended: enough values, a stop, or a lost link.
final class SubscriptionPrinter: Sendable {
    enum Ending: Sendable {
        case counted
        case stopped(StopReason)
        case lost(GATTError)
    }

    let format: NotificationLine.Format
    let limit: Int?
    /// Why the subscription ended; the first reason wins, and no value is printed after it.
    let ending = Latch<Ending>()
    /// Values printed; the lock also orders a print against the end.
    private let printed = Mutex(0)
    private let clock = SystemClock()

    init(format: NotificationLine.Format, limit: Int?) {
        self.format = format
        self.limit = limit
    }

    /// Prints one value unless the subscription has already ended.
    func received(_ value: UnsafeRawBufferPointer, handle: UInt16) {
        let line = NotificationLine.line(Array(value), handle: handle, at: clock.wallTime, format: format)
        printed.withLock { printed in
            guard ending.value == nil else { return }
            ValueText.emit(line)
            printed += 1
            if let limit, printed >= limit { _ = ending.settle(.counted) }
        }
    }

    /// Ends the subscription.
    func finish(_ reason: Ending) {
        printed.withLock { _ in _ = ending.settle(reason) }
    }
}

extension NotificationLine.Format: ExpressibleByArgument {}
