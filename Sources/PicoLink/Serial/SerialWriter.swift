public import BLEHost
import Synchronization

/// Sends a byte stream to a serial characteristic in values of at most ATT_MTU − 3 bytes (and 512), paced so
/// that a device with a small receive buffer and no flow control is not overrun.
///
/// How it writes follows the characteristic's properties:
///
/// - **Laird VSP** (ModemOut present): `VSPWriter`, writes without response bounded by ModemOut.
/// - **write and write without response**: writes without response, with a write *with* response as
///   a barrier once `window` bytes are unconfirmed. ATT handles a device's PDUs in order, so when the
///   barrier's response arrives every earlier write has been taken in; at most `window` bytes are ever
///   in flight unconfirmed.
/// - **write only**: every value is a write with response (one round trip each).
/// - **write without response only**: no acknowledgement exists, so a byte budget
///   (`GATTByteBudgetPacing`) holds the rate to `bytesPerSecond`.
public final class SerialWriter: Sendable {
    /// How values go out.
    public enum Mode: Sendable, Equatable {
        /// Laird VSP: writes without response bounded by ModemOut, through `VSPWriter`.
        case vsp
        /// Writes without response, with a write with response as the barrier once `window` bytes are
        /// unconfirmed (and for the first value).
        case commandsWithBarrier(window: Int)
        /// Every value a write with response.
        case requests
        /// Writes without response only, held to `bytesPerSecond` by a byte budget.
        case commands(bytesPerSecond: Int)
    }

    /// The default unconfirmed window: 4 values at the minimum MTU (see `BENCHMARKS.md`, serial).
    public static let defaultWindow = 80
    /// The default rate when only writes without response exist: a 115 200-baud UART.
    public static let defaultBytesPerSecond = 11_520
    /// The longest attribute value (Core 5.4 Vol 3 Part F §3.2.9): an MTU of 517 would allow 514.
    public static let maximumValue = 512

    /// The client the writes go through.
    public let client: GATTClient
    /// The value handle of the characteristic written (RX).
    public let handle: UInt16
    /// How values go out.
    public let mode: Mode
    private let vsp: VSPWriter?
    private let budget: GATTByteBudgetPacing?
    private let counters = Mutex((requests: 0, commands: 0, largest: 0))

    init(client: GATTClient, handle: UInt16, mode: Mode, vsp: VSPWriter? = nil) {
        self.client = client
        self.handle = handle
        self.mode = mode
        self.vsp = vsp
        if case .commands(let rate) = mode {
            budget = GATTByteBudgetPacing(bytesPerSecond: rate, burst: max(20, rate / 50))
        } else {
            budget = nil
        }
    }

    /// The mode `properties` allow: barrier writes when both kinds exist, else the one there is.
    public static func mode(
        for properties: GATTCharacteristicProperties,
        window: Int = defaultWindow,
        bytesPerSecond: Int = defaultBytesPerSecond
    ) -> Mode? {
        let commands = properties.contains(.writeWithoutResponse)
        let requests = properties.contains(.write)
        switch (commands, requests) {
        case (true, true): return window > 0 ? .commandsWithBarrier(window: window) : .requests
        case (false, true): return .requests
        case (true, false): return .commands(bytesPerSecond: max(1, bytesPerSecond))
        case (false, false): return nil
        }
    }

    /// Writes with response and without response sent so far, and the longest value (not counted in the
    /// VSP mode, where `VSPWriter` writes).
    public var statistics: (requests: Int, commands: Int, largest: Int) { counters.withLock { $0 } }

    /// Sends `bytes` in order. One caller at a time.
    public func send(_ bytes: [UInt8]) async throws(GATTError) {
        if let vsp {
            try await vsp.send(bytes)
            return
        }
        var offset = 0
        var unconfirmed = 0
        while offset < bytes.count {
            let size = min(client.mtu - 3, Self.maximumValue, bytes.count - offset)
            let value = Array(bytes[offset..<(offset + size)])
            switch mode {
            case .requests, .vsp:
                try await request(value)
            case .commandsWithBarrier(let window):
                // The first write ever is confirmed too: a refused RX (Insufficient Encryption, Write Not
                // Permitted) is reported at once instead of every write without response being dropped.
                if unconfirmed + size > window || counters.withLock({ $0.requests == 0 }) {
                    try await request(value)
                    unconfirmed = 0
                } else {
                    try await command(value)
                    unconfirmed += size
                }
            case .commands:
                try await command(value)
            }
            offset += size
        }
    }

    private func request(_ value: [UInt8]) async throws(GATTError) {
        try await client.write(value, to: handle)
        counters.withLock {
            $0.requests += 1
            $0.largest = max($0.largest, value.count)
        }
    }

    private func command(_ value: [UInt8]) async throws(GATTError) {
        try await client.writeWithoutResponse(value, to: handle, pacing: budget)
        counters.withLock {
            $0.commands += 1
            $0.largest = max($0.largest, value.count)
        }
    }
}
