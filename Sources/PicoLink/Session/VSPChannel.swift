public import BLEHost
import BLEWire

/// A `PicoChannel` over the Laird VSP service of a connected `GATTClient`: the device's bytes arrive as
/// TX notifications, and go out through a `VSPWriter` (ModemOut- and MTU-paced writes without response).
public final class VSPChannel: PicoChannel {
    /// The connected GATT client the channel runs over.
    public let client: GATTClient
    /// The paced writer to the VSP RX characteristic.
    public let writer: VSPWriter
    private let tx: GATTCharacteristic
    private let modemOut: GATTCharacteristic

    private init(client: GATTClient, writer: VSPWriter, tx: GATTCharacteristic, modemOut: GATTCharacteristic) {
        self.client = client
        self.writer = writer
        self.tx = tx
        self.modemOut = modemOut
    }

    /// Finds the VSP service on `client` and reads ModemOut; `headroom` bounds the bytes sent between two
    /// ModemOut reads (`VSPWriter`).
    public static func open(
        client: GATTClient,
        headroom: Int = VSPWriter.defaultHeadroom
    ) async throws(PicoSessionError) -> VSPChannel {
        let services: [GATTService]
        do throws(GATTError) {
            services = try await client.discoverPrimaryServices(uuid: .lairdVSPService)
        } catch {
            throw .from(error)
        }
        guard let service = services.first else { throw .notAPico("no Laird VSP service") }
        let characteristics: [GATTCharacteristic]
        do throws(GATTError) {
            characteristics = try await client.discoverCharacteristics(of: service)
        } catch {
            throw .from(error)
        }
        func find(_ uuid: BluetoothUUID, _ what: String) throws(PicoSessionError) -> GATTCharacteristic {
            guard let found = characteristics.first(where: { $0.uuid == uuid }) else {
                throw .notAPico("the VSP service has no \(what) characteristic")
            }
            return found
        }
        let tx = try find(.lairdVSPTx, "TX")
        let rx = try find(.lairdVSPRx, "RX")
        let modemOut = try find(.lairdVSPModemOut, "ModemOut")
        do throws(GATTError) {
            let initial = try await client.read(modemOut.valueHandle)
            let writer = VSPWriter(
                client: client,
                rxHandle: rx.valueHandle,
                modemOutHandle: modemOut.valueHandle,
                headroom: headroom,
                clearToSend: initial.first.map { $0 & 1 != 0 } ?? true,
                confirmFirst: rx.properties.contains(.write)
            )
            return VSPChannel(client: client, writer: writer, tx: tx, modemOut: modemOut)
        } catch {
            throw .from(error)
        }
    }

    /// Subscribes to ModemOut (the writer's pacing) and TX (the device's bytes).
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        ended: @escaping @Sendable (String) -> Void
    ) async throws(PicoSessionError) {
        let flow = writer.flow
        do throws(GATTError) {
            _ = try await client.subscribe(to: modemOut, kind: .notifications) { value in
                flow.update(fromFlowControlValue: value)
            }
            _ = try await client.subscribe(
                to: tx,
                kind: .notifications,
                ended: { reason in ended("\(reason)") },
                { value in receive(value) }
            )
        } catch {
            throw .from(error)
        }
        client.bearer.onClose { reason in ended("\(reason)") }
    }

    /// Sends `bytes` in order, paced as the device needs (see the type's comment).
    public func send(_ bytes: [UInt8]) async throws(PicoSessionError) {
        do throws(GATTError) {
            try await writer.send(bytes)
        } catch {
            throw .from(error)
        }
    }

    /// Why the channel ended; nil while it is open.
    public var endReason: String? { client.bearer.closeReason.map { "\($0)" } }

    /// Calls `handler` once when the channel ends (at once if it has).
    public func onEnd(_ handler: @escaping @Sendable (String) -> Void) {
        client.bearer.onClose { reason in handler("\(reason)") }
    }

    /// Ends the channel.
    public func close() { client.bearer.close() }

    /// What carries the channel, for provenance.
    public var summary: String { "MTU \(client.bearer.mtu)" }
}
