public import BLEHost
import BLEWire
public import Coordination
import Synchronization

/// A transparent byte stream over a serial-over-GATT service (HM-10, Laird VSP, Nordic UART or custom
/// UUIDs) of a connected `GATTClient`.
///
/// ```swift
/// let link = try await SerialLink.open(client: client) { bytes in output.write(bytes) }
/// try await link.send(Array("hello\n".utf8))
/// try await link.waitUntilQuiet(for: .seconds(1))
/// ```
///
/// Received values reach `receive` on the transport's reader thread, in order, with borrowed bytes and
/// no allocation; a slow `receive` slows the link down instead of losing data. Writes go through a
/// `SerialWriter` (MTU-sized, paced).
public final class SerialLink: Sendable {
    /// The connected client the link runs over.
    public let client: GATTClient
    /// The serial service in use: the one asked for, or the one detected.
    public let profile: SerialProfile
    /// The characteristic the host writes (host → device).
    public let rx: GATTCharacteristic
    /// The characteristic whose notifications or indications carry the device's bytes.
    public let tx: GATTCharacteristic
    /// How `send` writes: in the mode RX's properties allow, or paced by ModemOut for a Laird VSP.
    public let writer: SerialWriter
    let activity: SerialActivity

    private init(
        client: GATTClient,
        profile: SerialProfile,
        rx: GATTCharacteristic,
        tx: GATTCharacteristic,
        writer: SerialWriter,
        activity: SerialActivity
    ) {
        self.client = client
        self.profile = profile
        self.rx = rx
        self.tx = tx
        self.writer = writer
        self.activity = activity
    }

    /// Finds the service of `profile` (or, when nil, the first known one the device has), subscribes to
    /// its TX characteristic and picks the write mode from RX's properties. `window` and
    /// `bytesPerSecond` tune `SerialWriter`; `clock` times the quiet `waitUntilQuiet` waits for.
    public static func open(
        client: GATTClient,
        profile requested: SerialProfile? = nil,
        window: Int = SerialWriter.defaultWindow,
        bytesPerSecond: Int = SerialWriter.defaultBytesPerSecond,
        clock: any TimeSource = SystemClock(),
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) async throws(SerialLinkError) -> SerialLink {
        let services = try await mapped { () async throws(GATTError) in try await client.discoverPrimaryServices() }
        guard let profile = requested ?? SerialProfile.detect(in: services) else {
            let found = services.map(\.uuid.description).joined(separator: ", ")
            throw .noSerialService(
                "none of HM-10, Laird VSP or Nordic UART among the services [\(found)]; give the UUIDs"
            )
        }
        guard let service = services.first(where: { $0.uuid == profile.service }) else {
            throw .noSerialService("the device has no service \(profile.service)")
        }
        let characteristics = try await mapped { () async throws(GATTError) in
            try await client.discoverCharacteristics(of: service)
        }
        let rx = try find(profile.rx, "RX", in: characteristics, needs: [.write, .writeWithoutResponse])
        let tx = try find(profile.tx, "TX", in: characteristics, needs: [.notify, .indicate])
        let writer = try await mapped { () async throws(GATTError) in
            try await makeWriter(
                client: client,
                profile: profile,
                rx: rx,
                characteristics: characteristics,
                window: window,
                bytesPerSecond: bytesPerSecond
            )
        }
        let activity = SerialActivity(clock: clock)
        _ = try await mapped { () async throws(GATTError) in
            try await client.subscribe(to: tx, ended: { reason in activity.close(reason) }) { value in
                activity.received(value.count)
                receive(value)
            }
        }
        client.bearer.onClose { reason in activity.close(reason) }
        return SerialLink(client: client, profile: profile, rx: rx, tx: tx, writer: writer, activity: activity)
    }

    private static func mapped<T>(_ body: () async throws(GATTError) -> T) async throws(SerialLinkError) -> T {
        do {
            return try await body()
        } catch {
            throw .from(error)
        }
    }

    private static func find(
        _ uuid: BluetoothUUID,
        _ role: String,
        in characteristics: [GATTCharacteristic],
        needs properties: GATTCharacteristicProperties
    ) throws(SerialLinkError) -> GATTCharacteristic {
        guard
            let found = characteristics.first(where: { $0.uuid == uuid && !$0.properties.isDisjoint(with: properties) })
        else {
            throw .noSerialService("no \(role) characteristic \(uuid) with \(properties)")
        }
        return found
    }

    private static func makeWriter(
        client: GATTClient,
        profile: SerialProfile,
        rx: GATTCharacteristic,
        characteristics: [GATTCharacteristic],
        window: Int,
        bytesPerSecond: Int
    ) async throws(GATTError) -> SerialWriter {
        if profile == .lairdVSP, rx.properties.contains(.writeWithoutResponse),
            let modemOut = characteristics.first(where: { $0.uuid == .lairdVSPModemOut })
        {
            let initial = try await client.read(modemOut.valueHandle)
            let vsp = VSPWriter(
                client: client,
                rxHandle: rx.valueHandle,
                modemOutHandle: modemOut.valueHandle,
                headroom: VSPWriter.defaultHeadroom,
                clearToSend: initial.first.map { $0 & 1 != 0 } ?? true,
                confirmFirst: rx.properties.contains(.write)
            )
            let flow = vsp.flow
            _ = try await client.subscribe(to: modemOut, kind: .notifications) { value in
                flow.update(fromFlowControlValue: value)
            }
            return SerialWriter(client: client, handle: rx.valueHandle, mode: .vsp, vsp: vsp)
        }
        let mode = SerialWriter.mode(for: rx.properties, window: window, bytesPerSecond: bytesPerSecond)
        return SerialWriter(client: client, handle: rx.valueHandle, mode: mode ?? .requests)
    }

    /// Sends `bytes` in order (MTU-sized, paced). One caller at a time.
    public func send(_ bytes: [UInt8]) async throws(SerialLinkError) {
        do throws(GATTError) {
            try await writer.send(bytes)
        } catch {
            throw .from(error)
        }
    }

    /// Bytes received so far.
    public var receivedByteCount: Int { activity.byteCount }

    /// Why the link closed, or nil while it is up.
    public var closeReason: GATTError? { activity.closeReason }

    /// Returns once nothing has arrived for `idle` (counted from now or from the last value, whichever is
    /// later); throws `connectionLost` if the link closes first, `.gatt(.cancelled)` when the calling task
    /// is cancelled. Sleeps on the link's clock until the quiet would be over, and again when a value
    /// came meanwhile; the close wakes it at once.
    public func waitUntilQuiet(for idle: Duration) async throws(SerialLinkError) {
        let activity = self.activity
        let start = activity.clock.now
        let outcome = await withTaskGroup(of: SerialLinkError?.self) { group in
            group.addTask { await activity.closed.waitUnlessCancelled().map { .connectionLost($0) } }
            group.addTask {
                while true {
                    let deadline = max(start, activity.lastReceived) + idle
                    guard activity.clock.now < deadline else { return nil }
                    do {
                        try await activity.clock.sleep(until: deadline)
                    } catch {
                        return .gatt(.cancelled)
                    }
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let reason = activity.closeReason { throw .connectionLost(reason) }
        if let outcome { throw outcome }
        if Task.isCancelled { throw .gatt(.cancelled) }
    }

    /// Waits until the link closes; returns why (`.cancelled` when the calling task is cancelled first).
    public func waitUntilClosed() async -> GATTError {
        await activity.closed.waitUnlessCancelled() ?? .cancelled
    }
}
