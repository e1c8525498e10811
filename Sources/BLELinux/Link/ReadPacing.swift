/// Whether the reader drains the link on each wake or reads once, chosen from what the last full drain
/// found (reader thread only).
///
/// Draining costs one read more than there are packets: the last one only returns `EAGAIN`. In a
/// request → response exchange (one packet per wake, as a write → notify round trip) that is a third
/// more system calls than needed; in a burst of notifications it saves an `epoll_wait` per packet. So a
/// full drain that found a single packet switches to one read per wake (level-triggered epoll reports
/// at once whatever is left), every 16th wake drains fully again, and a drain that finds more than one
/// packet switches back.
///
/// A `.blocking` reader paces its reads the same way: its "drain" is one `recvmmsg` (which, after the
/// first PDU, looks once more for each slot and so costs an extra attempt inside the kernel when only one
/// PDU was waiting), its single read a `recv`.
struct ReadPacing {
    private var drainEachWake = true
    private var wakes: UInt32 = 0

    /// Whether this wake reads at most once.
    var readsOnce: Bool { !drainEachWake && wakes % 16 != 0 }

    /// Records a wake: `reads` deliveries, from a full drain or a single read.
    mutating func woke(reads: Int, drained: Bool) {
        wakes &+= 1
        if drained { drainEachWake = reads != 1 }
    }
}
