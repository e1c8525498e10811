/// The BT900 virtual-serial-port receive side: a bounded byte FIFO between the BLE link and the Pico's UART.
///
/// Bytes that arrive while the FIFO is full are **dropped** and counted (the module has nowhere to put them).
/// ModemOut reports the fill level with hysteresis: it goes to 0 ("full, stop sending") once the fill reaches
/// `fullThreshold` and back to 1 ("space") once it has drained to `resumeThreshold`, so a host that honours it
/// never loses a byte, and one that ignores it does.
///
/// Capacity: the module firmware sizes this FIFO when it opens the VSP port, and the figure used in the Pico's
/// module is not published. The default of 1024 bytes is a modest module buffer that still holds four
/// 244-byte writes (the largest ATT write at a 247-byte MTU), so an MTU-sized, ModemOut-paced host never
/// overruns it, while a host that blasts a whole script (often 300–600 bytes, up to several kB) without
/// pacing does on a slow UART. It is a parameter so that tests can model other sizes.
public struct VSPReceiveBuffer: Sendable {
    public let capacity: Int
    /// ModemOut goes to 0 when the fill reaches this many bytes.
    public let fullThreshold: Int
    /// ModemOut goes back to 1 when the fill has drained to this many bytes.
    public let resumeThreshold: Int
    public private(set) var count = 0
    /// ModemOut: `true` = space (1), `false` = full (0).
    public private(set) var modemOut = true
    /// Bytes lost because the FIFO was full.
    public private(set) var droppedByteCount = 0

    private var storage: [UInt8]
    private var head = 0

    /// Default thresholds: full at 3/4 of `capacity`, space again at 1/4.
    public init(capacity: Int = 1024, fullThreshold: Int? = nil, resumeThreshold: Int? = nil) {
        precondition(capacity > 0, "VSP receive buffer needs a positive capacity")
        self.capacity = capacity
        self.fullThreshold = min(capacity, max(1, fullThreshold ?? capacity * 3 / 4))
        self.resumeThreshold = min(self.fullThreshold - 1, max(0, resumeThreshold ?? capacity / 4))
        storage = Array(repeating: 0, count: capacity)
    }

    public var isEmpty: Bool { count == 0 }

    /// Host → module: stores what fits and drops the rest. Returns how many bytes were accepted.
    @discardableResult
    public mutating func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        let accepted = min(bytes.count, capacity - count)
        var tail = (head + count) % capacity
        for index in 0..<accepted {
            storage[tail] = bytes[index]
            tail += 1
            if tail == capacity { tail = 0 }
        }
        count += accepted
        droppedByteCount += bytes.count - accepted
        if count >= fullThreshold { modemOut = false }
        return accepted
    }

    /// Module → UART: moves up to `maximum` bytes to `destination` (appending). Returns how many.
    @discardableResult
    public mutating func read(into destination: inout [UInt8], maximum: Int) -> Int {
        let taken = min(maximum, count)
        for _ in 0..<taken {
            destination.append(storage[head])
            head += 1
            if head == capacity { head = 0 }
        }
        count -= taken
        if !modemOut, count <= resumeThreshold { modemOut = true }
        return taken
    }
}

/// The BT900 transmit side: cuts the Pico's UART output into notification payloads of at most
/// `maximumPayload` bytes (ATT_MTU − 3). Full payloads go out as soon as they fill; a partial one on `flush`.
struct VSPTransmitChunker {
    private(set) var maximumPayload: Int
    private var pending: [UInt8] = []

    init(maximumPayload: Int) {
        self.maximumPayload = max(1, maximumPayload)
        pending.reserveCapacity(self.maximumPayload)
    }

    mutating func setMaximumPayload(_ size: Int, emit: (UnsafeRawBufferPointer) -> Void) {
        flush(emit: emit)
        maximumPayload = max(1, size)
        pending.reserveCapacity(maximumPayload)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while offset < bytes.count {
            let room = maximumPayload - pending.count
            let take = min(room, bytes.count - offset)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
            offset += take
            if pending.count == maximumPayload { flush(emit: emit) }
        }
    }

    mutating func flush(emit: (UnsafeRawBufferPointer) -> Void) {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { emit($0) }
        pending.removeAll(keepingCapacity: true)
    }
}
