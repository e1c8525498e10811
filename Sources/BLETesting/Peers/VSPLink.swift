public import BLEHost
public import BLEWire
import Synchronization

/// A Laird VSP ("virtual serial port") link through `HCIHost`: connect, MTU exchange, discovery of the
/// VSP service by UUID, subscription to TX; text goes out through RX and comes back as notifications.
/// Used by the H4 peer tests and by `Bench h4`.
public final class VSPLink: Sendable {
    public static let service = BluetoothUUID("569a1101-b87f-490c-92cb-11ba5ea5167c")!
    public static let txUUID = BluetoothUUID("569a2000-b87f-490c-92cb-11ba5ea5167c")!
    public static let rxUUID = BluetoothUUID("569a2001-b87f-490c-92cb-11ba5ea5167c")!

    public let connection: HCIConnection
    public let client: GATTClient
    public let rx: GATTCharacteristic
    public let tx: GATTCharacteristic
    private let inbox = Mutex(Inbox())

    struct Inbox {
        var bytes: [UInt8] = []
        var keepBytes = true
        var count = 0
        var lastValue: [UInt8] = []
        var waiter: (predicate: @Sendable (Inbox) -> Bool, continuation: CheckedContinuation<Bool, Never>)?
    }

    /// Errors of the scenario steps.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case host(HCIHostError)
        case gatt(GATTError)
        case missing(String)
        public var description: String {
            switch self {
            case .host(let error): "host: \(error)"
            case .gatt(let error): "GATT: \(error)"
            case .missing(let what): "missing \(what)"
            }
        }
    }

    private init(connection: HCIConnection, client: GATTClient, rx: GATTCharacteristic, tx: GATTCharacteristic) {
        self.connection = connection
        self.client = client
        self.rx = rx
        self.tx = tx
    }

    /// Connects to `peer`, exchanges MTU `mtu`, discovers VSP and subscribes to TX.
    public static func open(host: HCIHost, peer: BluetoothAddress, mtu: Int = 247) async throws(Failure) -> VSPLink {
        let connection: HCIConnection
        do throws(HCIHostError) {
            connection = try await host.connect(to: peer)
        } catch {
            throw .host(error)
        }
        let client: GATTClient
        let characteristics: [GATTCharacteristic]
        do throws(GATTError) {
            client = try await GATTClient.connect(transport: connection.att, mtu: mtu)
            guard let vsp = try await client.discoverPrimaryServices(uuid: service).first else {
                throw .notFound("VSP service")
            }
            characteristics = try await client.discoverCharacteristics(of: vsp)
        } catch {
            throw .gatt(error)
        }
        guard let tx = characteristics.first(where: { $0.uuid == txUUID }) else { throw .missing("TX") }
        guard let rx = characteristics.first(where: { $0.uuid == rxUUID }) else { throw .missing("RX") }
        let link = VSPLink(connection: connection, client: client, rx: rx, tx: tx)
        do throws(GATTError) {
            _ = try await client.subscribe(to: tx) { [weak link] value in link?.received(value) }
        } catch {
            throw .gatt(error)
        }
        return link
    }

    /// Reader thread: one notification.
    private func received(_ value: UnsafeRawBufferPointer) {
        let continuation: CheckedContinuation<Bool, Never>? = inbox.withLock { inbox in
            inbox.count += 1
            if inbox.keepBytes {
                inbox.bytes.append(contentsOf: value)
            } else {
                inbox.lastValue.removeAll(keepingCapacity: true)
                inbox.lastValue.append(contentsOf: value)
            }
            if let waiter = inbox.waiter, waiter.predicate(inbox) {
                inbox.waiter = nil
                return waiter.continuation
            }
            return nil
        }
        continuation?.resume(returning: true)
    }

    /// Sends `text` through RX in pieces of at most ATT_MTU − 3 octets.
    public func send(_ text: String, withResponse: Bool = true) async throws(GATTError) {
        let bytes = Array(text.utf8)
        let piece = client.mtu - 3
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + piece)])
            if withResponse {
                try await client.write(chunk, to: rx)
            } else {
                try await client.writeWithoutResponse(chunk, to: rx.valueHandle)
            }
            offset += piece
        }
    }

    /// Waits until the received text contains `terminator` (searching from the start), then returns
    /// everything up to and including it and removes that from the inbox. Nil on timeout.
    public func read(until terminator: String, timeout: Duration = .seconds(10)) async -> String? {
        let pattern = Array(terminator.utf8)
        let found = await wait(timeout: timeout) { inbox in Self.find(pattern, in: inbox.bytes) != nil }
        guard found else { return nil }
        return inbox.withLock { inbox in
            guard let end = Self.find(pattern, in: inbox.bytes) else { return nil }
            let text = String(decoding: inbox.bytes[0..<end], as: UTF8.self)
            inbox.bytes.removeFirst(end)
            return text
        }
    }

    /// The text received and not yet read.
    public var unread: String { inbox.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    /// Counts notifications only (no copies kept): for round trips and blasts.
    public func countOnly() {
        inbox.withLock { inbox in
            inbox.keepBytes = false
            inbox.lastValue.reserveCapacity(ATTBearer.maximumMTU)
        }
    }

    /// Notifications received so far.
    public var notificationCount: Int { inbox.withLock { $0.count } }

    /// The value of the latest notification (count-only mode).
    public var lastValue: [UInt8] { inbox.withLock { $0.lastValue } }

    /// Waits until `count` notifications have arrived in total. False on timeout.
    public func wait(forCount count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.count >= count }
    }

    private func wait(timeout: Duration, _ predicate: @escaping @Sendable (Inbox) -> Bool) async -> Bool {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            let continuation = self?.inbox.withLock { inbox in
                defer { inbox.waiter = nil }
                return inbox.waiter?.continuation
            }
            continuation?.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready = inbox.withLock { inbox in
                if predicate(inbox) { return true }
                inbox.waiter = (predicate, continuation)
                return false
            }
            if ready { continuation.resume(returning: true) }
        }
    }

    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if bytes[start..<start + pattern.count].elementsEqual(pattern) { return start + pattern.count }
        }
        return nil
    }
}
