public import BLEHost
import BLEWire
import Dispatch
import Synchronization

/// A `SimulatedPico` served through a `GATTServer` on one ATT bearer, with the GAP service (its Device
/// Name, `SimulatedPicoConfiguration.deviceName`) and the BT900's Laird VSP service, so that a
/// `GATTClient` talks to it exactly as to a real EmStat Pico:
///
/// | characteristic | properties | wiring |
/// |---|---|---|
/// | TX `569a2000-…` | notify | the device's output, cut to ATT_MTU − 3 bytes per notification |
/// | RX `569a2001-…` | write, write without response | `SimulatedPico.receive(_:)` (bytes that overrun the FIFO are lost) |
/// | ModemOut `569a2002-…` | read, notify | 1 = space, 0 = full; notified when it changes |
/// | ModemIn `569a2003-…` | read, write, write without response | accepted and ignored, as the Pico's module does |
///
/// Notifications follow the negotiated MTU: the payload limit is updated when the client's first write
/// after an Exchange MTU arrives (every command starts with a write), or by `updateNotificationPayload()`.
/// A peripheral made with its own device stops it when the bearer closes (a running script is aborted);
/// one given a device (`init(transport:pico:)`) only detaches from it, so that a running script goes on
/// without a host as it does on the instrument, for the next link to find.
public final class SimulatedPicoPeripheral: Sendable {
    public let pico: SimulatedPico
    /// Whether closing the link stops the device (it was made for this link).
    private let ownsDevice: Bool
    public let server: GATTServer
    public let handles: GATTServiceHandles
    public let txHandle: UInt16
    public let rxHandle: UInt16
    public let modemOutHandle: UInt16
    public let modemInHandle: UInt16
    private let payloadLimit = Mutex(0)

    /// Serves a new simulated Pico on `transport` (not yet started). Call `start()` next.
    public convenience init(transport: any ATTTransport, configuration: SimulatedPicoConfiguration = .fast) {
        self.init(transport: transport, device: SimulatedPico(configuration: configuration), owned: true)
    }

    /// Serves `pico`, which outlives this link, on `transport` (not yet started). Call `start()` next.
    public convenience init(transport: any ATTTransport, pico: SimulatedPico) {
        self.init(transport: transport, device: pico, owned: false)
    }

    private init(transport: any ATTTransport, device: SimulatedPico, owned: Bool) {
        let configuration = device.configuration
        let bearer = ATTBearer(transport: transport)
        let box = PicoBox()
        let database = GATTDatabase()
        database.addGenericAccess(deviceName: configuration.deviceName)
        let definition = GATTServiceDefinition(
            uuid: .lairdVSPService,
            characteristics: [
                GATTCharacteristicDefinition(uuid: .lairdVSPTx, properties: [.notify], maximumLength: 0),
                GATTCharacteristicDefinition(
                    uuid: .lairdVSPRx,
                    properties: [.write, .writeWithoutResponse],
                    storesWrites: false,
                    onWrite: { write in
                        box.peripheral?.received(write.value)
                        return nil
                    }
                ),
                GATTCharacteristicDefinition(
                    uuid: .lairdVSPModemOut,
                    properties: [.read, .notify],
                    value: [1],
                    maximumLength: 1,
                    onRead: { [box.modemOutNow()] }
                ),
                GATTCharacteristicDefinition(
                    uuid: .lairdVSPModemIn,
                    properties: [.read, .write, .writeWithoutResponse],
                    value: [1],
                    maximumLength: 1
                ),
            ]
        )
        handles = database.addService(definition)
        server = GATTServer(database: database, bearer: bearer)
        txHandle = handles.valueHandle(of: .lairdVSPTx) ?? 0
        rxHandle = handles.valueHandle(of: .lairdVSPRx) ?? 0
        modemOutHandle = handles.valueHandle(of: .lairdVSPModemOut) ?? 0
        modemInHandle = handles.valueHandle(of: .lairdVSPModemIn) ?? 0
        let server = self.server
        let tx = txHandle
        let modemOut = modemOutHandle
        pico = device
        ownsDevice = owned
        pico.setMaximumNotificationPayload(configuration.maximumNotificationPayload)
        pico.attach(
            output: { payload in _ = try? server.notify(tx, value: payload) },
            modemOut: { space in
                withUnsafeBytes(of: UInt8(space ? 1 : 0)) { value in _ = try? server.notify(modemOut, value: value) }
            }
        )
        payloadLimit.withLock { $0 = configuration.maximumNotificationPayload }
        box.set(self)
        let pico = self.pico
        if owned {
            // The close may be reported on a simulator thread that is sending; stop the device elsewhere.
            bearer.onClose { _ in DispatchQueue.global().async { pico.stop() } }
        } else {
            bearer.onClose { _ in pico.detach() }
        }
    }

    /// Starts the device (if it is not running already) and the bearer.
    public func start() throws(GATTError) {
        pico.start()
        try server.bearer.start()
    }

    /// Closes the link (the client sees a disconnect); stops the device if it was made for this link.
    public func close() {
        server.bearer.close()
        if ownsDevice { pico.stop() } else { pico.detach() }
    }

    /// Cuts notifications to the negotiated ATT_MTU − 3 if that changed.
    public func updateNotificationPayload() {
        let limit = server.bearer.mtu - 3
        let changed = payloadLimit.withLock { current in
            defer { current = limit }
            return current != limit
        }
        if changed { pico.setMaximumNotificationPayload(limit) }
    }

    func received(_ value: UnsafeRawBufferPointer) {
        updateNotificationPayload()
        pico.receive(value)
    }
}

/// Lets the database's handlers, made before the peripheral exists, reach it (weakly: the bearer holds
/// the server, and the server holds the handlers).
private final class PicoBox: Sendable {
    private let reference = Mutex<Weak?>(nil)

    private struct Weak { weak var peripheral: SimulatedPicoPeripheral? }

    var peripheral: SimulatedPicoPeripheral? { reference.withLock { $0?.peripheral } }

    func set(_ peripheral: SimulatedPicoPeripheral) { reference.withLock { $0 = Weak(peripheral: peripheral) } }

    func modemOutNow() -> UInt8 { (peripheral?.pico.modemOut ?? true) ? 1 : 0 }
}
