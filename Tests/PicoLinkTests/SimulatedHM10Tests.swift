import BLEHost
import BLETesting
import BLEWire
import Foundation
import PicoSimulator
import Synchronization
import Testing

/// The HM-10 simulator through a `GATTClient`, as a host sees the module.
@Suite struct SimulatedHM10Tests {
    struct Module {
        let peripheral: SimulatedHM10Peripheral
        let client: GATTClient

        static func make(_ configuration: HM10Configuration = HM10Configuration()) async throws -> Module {
            let (host, device) = try SocketPairATTTransport.makePair()
            let peripheral = SimulatedHM10Peripheral(transport: device, configuration: configuration)
            try peripheral.start()
            let client = try await GATTClient.connect(transport: host)
            return Module(peripheral: peripheral, client: client)
        }

        func data() async throws -> GATTCharacteristic {
            let service = try #require(try await client.discoverPrimaryServices(uuid: .hm10Service).first)
            return try #require(try await client.discoverCharacteristics(of: service).first)
        }

        func close() { peripheral.close() }
    }

    @Test func keepsTheMTUAt23AndNamesItselfHMSoft() async throws {
        let module = try await Module.make()
        defer { module.close() }
        #expect(module.client.mtu == 23, "offered 517, the module answers 23")
        let gap = try #require(try await module.client.discoverPrimaryServices(uuid: .genericAccessService).first)
        let name = try #require(
            try await module.client.discoverCharacteristics(of: gap).first { $0.uuid == .deviceName }
        )
        #expect(try await module.client.read(name.valueHandle) == Array("HMSoft".utf8))
        let data = try await module.data()
        #expect(data.uuid == .hm10Characteristic)
        #expect(data.properties == [.read, .write, .writeWithoutResponse, .notify])
    }

    @Test func echoesWritesAsNotificationsOfAtMost20Bytes() async throws {
        let module = try await Module.make()
        defer { module.close() }
        let data = try await module.data()
        let received = Mutex<[[UInt8]]>([])
        _ = try await module.client.subscribe(to: data) { value in received.withLock { $0.append(Array(value)) } }
        let message = (0..<100).map { UInt8($0) }
        for start in stride(from: 0, to: message.count, by: 20) {
            try await module.client.write(Array(message[start..<(start + 20)]), to: data)
        }
        try #require(await eventually { received.withLock { $0.reduce(0) { $0 + $1.count } } >= message.count })
        let values = received.withLock { $0 }
        #expect(values.allSatisfy { $0.count <= 20 })
        #expect(values.flatMap { $0 } == message)
        #expect(module.peripheral.statistics.writeRequests == 5)
    }

    @Test func refusesAValueLongerThan20Bytes() async throws {
        let module = try await Module.make()
        defer { module.close() }
        let data = try await module.data()
        await #expect(throws: GATTError.self) {
            try await module.client.write(Array(repeating: 0x41, count: 21), to: data)
        }
        #expect(module.peripheral.statistics.receivedBytes == 0)
    }

    @Test func writesWithoutResponseFasterThanTheUARTOverrunTheFIFO() async throws {
        let module = try await Module.make(HM10Configuration(receiveCapacity: 64, uartBytesPerSecond: 2_000))
        defer { module.close() }
        let data = try await module.data()
        let chunk = [UInt8](repeating: 0x55, count: 20)
        for _ in 0..<40 {
            try chunk.withUnsafeBytes { bytes in try module.client.sendWriteCommand(bytes, to: data.valueHandle) }
        }
        try #require(await eventually { module.peripheral.statistics.writeCommands == 40 })
        let statistics = module.peripheral.statistics
        #expect(statistics.droppedBytes > 0)
        #expect(statistics.receivedBytes + statistics.droppedBytes == 800)
    }
}
