public import BLEHost
import BLEWire
import Foundation
import Synchronization

/// An HM-10 serial module (TI CC2541 with the "HMSoft" firmware) served through a `GATTServer`, with
/// its UART looped back, so that a `GATTClient` sees what a host sees when the module's TX and RX pins
/// are wired together:
///
/// | service | characteristic | properties | wiring |
/// |---|---|---|---|
/// | Generic Access `1800` | Device Name `2A00` | read | "HMSoft" |
/// | `FFE0` | `FFE1` | read, write, write without response, notify | writes go to the UART; what the UART receives is notified back in values of at most 20 bytes |
///
/// The module has no data length extension and keeps ATT_MTU at 23: it answers an Exchange MTU with 23,
/// so every value either way is at most 20 bytes. Written bytes enter a bounded receive FIFO
/// (`HM10Configuration.receiveCapacity`); bytes that do not fit are **dropped** and counted, as on the
/// module (it has no flow control towards the central), which is why a host must pace its writes. A
/// Write Request is answered once its bytes have left the FIFO for the UART: a write with response is
/// the one acknowledgement a host can wait for, and after it the FIFO holds nothing written earlier.
/// (The HM-10's firmware does not document when it answers; this is the model the simulator keeps.)
public final class SimulatedHM10Peripheral: Sendable {
    public let server: GATTServer
    public let handles: GATTServiceHandles
    /// The FFE1 value handle (both directions).
    public let dataHandle: UInt16
    public let configuration: HM10Configuration
    let uart: HM10UART

    /// Serves a new module on `transport` (not yet started). Call `start()` next.
    public init(transport: any ATTTransport, configuration: HM10Configuration = HM10Configuration()) {
        self.configuration = configuration
        let bearer = ATTBearer(transport: transport, preferredMTU: ATTBearer.defaultMTU)
        let uart = HM10UART(configuration: configuration)
        self.uart = uart
        let database = GATTDatabase()
        database.addGenericAccess(deviceName: configuration.name)
        handles = database.addService(
            GATTServiceDefinition(
                uuid: .hm10Service,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: .hm10Characteristic,
                        properties: configuration.dataProperties,
                        maximumLength: HM10Configuration.maximumValue,
                        storesWrites: false,
                        onWrite: { write in
                            uart.received(write.value, acknowledged: !write.withoutResponse)
                            return nil
                        }
                    )
                ]
            )
        )
        server = GATTServer(database: database, bearer: bearer)
        dataHandle = handles.valueHandle(of: .hm10Characteristic) ?? 0
        let server = self.server
        let handle = dataHandle
        uart.output = { value in (try? server.notify(handle, value: value)) == true }
        bearer.onClose { _ in uart.stop() }
    }

    /// Starts the UART loop and the bearer.
    public func start() throws(GATTError) {
        uart.start()
        try server.bearer.start()
    }

    /// Stops the module and closes the link (the client sees a disconnect).
    public func close() {
        server.bearer.close()
        uart.stop()
    }

    /// What the module has counted so far.
    public var statistics: HM10Statistics { uart.statistics }
}
