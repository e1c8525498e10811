import BLEHost
import BLETesting
import BLEWire
import Coordination
import Synchronization

/// A client and a server joined by a socketpair, serving a small database that exercises every
/// procedure: 16- and 128-bit UUIDs, an include, long values, read-only and write-only values.
struct GATTFixture {
    static let vspService = BluetoothUUID("569a1101-b87f-490c-92cb-11ba5ea5167c")!
    static let tx = BluetoothUUID("569a2000-b87f-490c-92cb-11ba5ea5167c")!
    static let rx = BluetoothUUID("569a2001-b87f-490c-92cb-11ba5ea5167c")!
    static let modemOut = BluetoothUUID("569a2002-b87f-490c-92cb-11ba5ea5167c")!
    static let long = BluetoothUUID("0000feed-0000-1000-8000-00805f9b34fc")!
    static let secret = BluetoothUUID(0xFFF1)
    static let sink = BluetoothUUID(0xFFF2)
    static let secondary = BluetoothUUID("12345678-1234-5678-9abc-def012345678")!
    static let longValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    let clientTransport: SocketPairATTTransport
    let serverTransport: SocketPairATTTransport
    let database: GATTDatabase
    let server: GATTServer
    let client: GATTClient
    let gap: GATTServiceHandles
    let gatt: GATTServiceHandles
    let included: GATTServiceHandles
    let vsp: GATTServiceHandles
    let received: Received

    /// Values written to RX, in order.
    final class Received: Sendable {
        let values = Mutex<[[UInt8]]>([])
        var all: [[UInt8]] { values.withLock { $0 } }
    }

    static func make(mtu: Int, clock: any TimeSource = ManualClock()) async throws -> GATTFixture {
        let (clientEnd, serverEnd) = try SocketPairATTTransport.makePair()
        let database = GATTDatabase()
        let received = Received()
        let gap = database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1800),
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(0x2A00),
                        properties: .read,
                        value: Array("hcipico".utf8)
                    )
                ]
            )
        )
        let gatt = database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID.genericAttributeService,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID.serviceChanged,
                        properties: .indicate,
                        permissions: []
                    )
                ]
            )
        )
        let included = database.addService(
            GATTServiceDefinition(
                uuid: secondary,
                isPrimary: false,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, value: [99])
                ]
            )
        )
        let vsp = database.addService(
            GATTServiceDefinition(
                uuid: vspService,
                includes: [included],
                characteristics: [
                    GATTCharacteristicDefinition(uuid: tx, properties: [.notify, .indicate]),
                    GATTCharacteristicDefinition(
                        uuid: rx,
                        properties: [.write, .writeWithoutResponse],
                        maximumLength: 244,
                        storesWrites: false,
                        onWrite: { write in
                            if write.value.first == 0xEE { return ATTErrorCode(rawValue: 0x80) }
                            received.values.withLock { $0.append(Array(write.value)) }
                            return nil
                        }
                    ),
                    GATTCharacteristicDefinition(uuid: modemOut, properties: [.read, .notify], value: [1]),
                    GATTCharacteristicDefinition(
                        uuid: long,
                        properties: [.read, .write],
                        value: longValue,
                        descriptors: [
                            GATTDescriptorDefinition(
                                uuid: BluetoothUUID.characteristicUserDescription,
                                value: Array("long".utf8)
                            )
                        ]
                    ),
                    GATTCharacteristicDefinition(uuid: secret, properties: .write, value: [1, 2, 3]),
                    GATTCharacteristicDefinition(uuid: sink, properties: .read, value: [4, 5]),
                ]
            )
        )
        let serverBearer = ATTBearer(transport: serverEnd, clock: clock)
        let server = GATTServer(database: database, bearer: serverBearer)
        try serverBearer.start()
        let client = try await GATTClient.connect(transport: clientEnd, mtu: mtu, clock: clock)
        return GATTFixture(
            clientTransport: clientEnd,
            serverTransport: serverEnd,
            database: database,
            server: server,
            client: client,
            gap: gap,
            gatt: gatt,
            included: included,
            vsp: vsp,
            received: received
        )
    }

    func handle(_ uuid: BluetoothUUID) -> UInt16 { vsp.valueHandle(of: uuid)! }

    /// The discovered characteristic with `uuid` in the VSP service.
    func characteristic(_ uuid: BluetoothUUID) async throws -> GATTCharacteristic {
        let service = try await client.discoverPrimaryServices(uuid: Self.vspService)[0]
        return try await client.discoverCharacteristics(of: service, uuid: uuid)[0]
    }
}

/// The MTUs every client–server test runs at.
let testMTUs = [23, 185, 247, 517]
