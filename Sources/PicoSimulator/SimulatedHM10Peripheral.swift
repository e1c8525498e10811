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
        _ = database.addService(
            GATTServiceDefinition(
                uuid: .genericAccessService,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: .deviceName,
                        properties: [.read],
                        value: Array(configuration.name.utf8)
                    )
                ]
            )
        )
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

/// How the simulated HM-10 behaves.
public struct HM10Configuration: Sendable {
    /// The largest value either way: ATT_MTU 23 − 3.
    public static let maximumValue = 20

    /// The GAP Device Name.
    public var name: String
    /// The receive FIFO between the radio and the UART, in bytes. The module's figure is not
    /// published; 256 bytes is a small microcontroller buffer that still holds a dozen 20-byte writes.
    public var receiveCapacity: Int
    /// The UART rate in bytes per second (9600 baud ≈ 960 B/s, the module's default), or nil to move
    /// bytes as fast as the host reads the echoes.
    public var uartBytesPerSecond: Int?
    /// FFE1's properties (a test may drop write or write without response to model other modules).
    public var dataProperties: GATTCharacteristicProperties

    public init(
        name: String = "HMSoft",
        receiveCapacity: Int = 256,
        uartBytesPerSecond: Int? = nil,
        dataProperties: GATTCharacteristicProperties = [.read, .write, .writeWithoutResponse, .notify]
    ) {
        self.name = name
        self.receiveCapacity = max(HM10Configuration.maximumValue, receiveCapacity)
        self.uartBytesPerSecond = uartBytesPerSecond.map { max(1, $0) }
        self.dataProperties = dataProperties
    }
}

/// Counters of a simulated HM-10.
public struct HM10Statistics: Sendable, Equatable {
    /// Bytes written by the host and taken into the FIFO.
    public var receivedBytes = 0
    /// Bytes lost because the FIFO was full (write commands only).
    public var droppedBytes = 0
    /// Write Requests and Write Commands received.
    public var writeRequests = 0
    public var writeCommands = 0
    /// The longest value written.
    public var largestWrite = 0
    /// Bytes notified back and notifications sent.
    public var notifiedBytes = 0
    public var notifications = 0
}
