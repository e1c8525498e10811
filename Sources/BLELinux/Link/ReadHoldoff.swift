/// When a polled reader waits a little before its next read, so that one read takes what a streaming
/// device sent meanwhile instead of one read (and one delivery) per line: as a USB-UART adapter's latency
/// timer holds bytes back before it sends them on (reader thread only).
///
/// The reader pauses for `pause` after a wake that read fewer than `shortRead` bytes, but only while the
/// device streams: when the wake before it was less than twice `pause` earlier. The first read after a
/// quiet spell (a command's reply, the first package of a run) is never held back, and a held-back byte
/// waits at most `pause`.
struct ReadHoldoff {
    /// How long to wait, in nanoseconds.
    let pause: UInt64
    /// Reads of this many bytes or more are not followed by a pause.
    let shortRead: Int
    private var previousWake: UInt64?

    init(pause: Duration, shortRead: Int) {
        let (seconds, attoseconds) = pause.components
        self.pause = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        self.shortRead = shortRead
    }

    /// The hold-off for a UART at `baudRate`: the time `bytes` take on the line (8N1, ten bits a byte),
    /// with `bytes` also the short read.
    init(baudRate: Int, bytes: Int = 64) {
        self.init(pause: .nanoseconds(Int64(bytes) * 10 * 1_000_000_000 / Int64(max(baudRate, 1))), shortRead: bytes)
    }

    /// Records a wake at `now` (monotonic nanoseconds) that read `bytes`; returns whether to pause before
    /// waiting again.
    mutating func woke(bytes: Int, at now: UInt64) -> Bool {
        defer { previousWake = now }
        guard bytes > 0, bytes < shortRead, let previous = previousWake else { return false }
        return now &- previous < 2 * pause
    }
}
