/// Host → controller ACL flow control (Core 5.4 Vol 4 Part E §4.1.1): the controller buffers
/// `capacity` packets of at most `length` octets; each packet sent takes a credit, Number Of Completed
/// Packets gives them back per handle, and a disconnection returns what its handle still held.
///
/// PDUs that cannot go out at once (no credit, or others already waiting) wait in `queue`, in order,
/// as whole L2CAP frames. Kept inside `HCIHost.State`, so every use is under the host's lock.
///
/// Answers the host owes a peer's signaling requests wait here too, but at most
/// `signalingAnswerLimit` of them: a peer that floods requests faster than the controller returns
/// credits gets the rest unanswered (counted by the host), never a queue that grows with its flood.
struct HCIACLFlow {
    struct Frame {
        let handle: UInt16
        /// The L2CAP frame: basic header and payload.
        let bytes: [UInt8]
        /// Octets already sent.
        var offset = 0
        /// An answer to a peer's signaling request (LE signaling channel).
        var isSignalingAnswer = false
    }

    /// The most signaling answers that may wait for credits at once, over every link.
    static let signalingAnswerLimit = 256
    /// The most frames the queue keeps room for once it has drained (a burst's array is let go).
    static let retainedCapacity = 256

    private(set) var length = 27
    private(set) var capacity = 1
    private(set) var free = 1
    private(set) var inFlight: [UInt16: Int] = [:]
    private(set) var queue: [Frame] = []
    private var queueHead = 0
    /// Signaling answers among the frames still waiting.
    private(set) var queuedSignalingAnswers = 0

    mutating func configure(length: Int, count: Int) {
        self.length = length
        capacity = count
        free = count
        inFlight = [:]
        queue = []
        queueHead = 0
        queuedSignalingAnswers = 0
    }

    mutating func reset() { configure(length: length, count: capacity) }

    var hasQueued: Bool { queueHead < queue.count }

    /// Takes a credit for one packet on `handle`; false when none is free.
    mutating func take(_ handle: UInt16) -> Bool {
        guard free > 0 else { return false }
        free -= 1
        inFlight[handle, default: 0] += 1
        return true
    }

    /// Returns `count` credits for `handle` (Number Of Completed Packets), never more than it holds.
    mutating func complete(_ handle: UInt16, count: Int) {
        guard let held = inFlight[handle] else { return }
        let returned = min(held, count)
        inFlight[handle] = held - returned
        free = min(capacity, free + returned)
    }

    /// Whether `handle` has frames waiting or packets the controller has not completed yet.
    func isBusy(_ handle: UInt16) -> Bool {
        if let held = inFlight[handle], held > 0 { return true }
        return hasQueued && queue[queueHead...].contains { $0.handle == handle }
    }

    /// A handle is gone: its credits come back and its waiting frames are dropped.
    mutating func remove(_ handle: UInt16) {
        if let held = inFlight.removeValue(forKey: handle) { free = min(capacity, free + held) }
        if hasQueued {
            let remaining = queue[queueHead...].filter { $0.handle != handle }
            queue = Array(remaining)
            queueHead = 0
            queuedSignalingAnswers = queue.count { $0.isSignalingAnswer }
        }
    }

    /// Whether one more signaling answer may wait for credits.
    var acceptsSignalingAnswer: Bool { queuedSignalingAnswers < Self.signalingAnswerLimit }

    mutating func enqueue(_ frame: Frame) {
        if queueHead > 64, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        if frame.isSignalingAnswer { queuedSignalingAnswers += 1 }
        queue.append(frame)
    }

    /// The next frame to send from, if any.
    var head: Frame? { hasQueued ? queue[queueHead] : nil }

    mutating func advanceHead(by sent: Int) {
        queue[queueHead].offset += sent
        if queue[queueHead].offset >= queue[queueHead].bytes.count {
            if queue[queueHead].isSignalingAnswer { queuedSignalingAnswers -= 1 }
            queueHead += 1
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: queue.capacity <= Self.retainedCapacity)
            queueHead = 0
        }
    }
}
