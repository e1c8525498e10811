import BLEHost
import BLETesting
import BLEWire
import Testing

/// Reads and writes, client against server over the socketpair, at every test MTU.
@Suite struct GATTReadWriteTests {
    @Test(arguments: testMTUs) func readsShortLongByTypeAndMultiple(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let longHandle = link.handle(GATTFixture.long)
        #expect(try await link.client.read(longHandle) == Array(GATTFixture.longValue.prefix(mtu - 1)))
        #expect(try await link.client.readLong(longHandle) == GATTFixture.longValue)
        #expect(try await link.client.read(link.gap.characteristics[0].valueHandle) == Array("hcipico".utf8))
        let byType = try await link.client.readByType(BluetoothUUID(0x2A00))
        #expect(byType.map(\.handle) == [link.gap.characteristics[0].valueHandle])
        #expect(byType.first?.value == Array("hcipico".utf8))
        let sink = link.handle(GATTFixture.sink)
        let modemOut = link.handle(GATTFixture.modemOut)
        #expect(try await link.client.readMultiple([sink, modemOut]) == [4, 5, 1])
        #expect(try await link.client.readMultipleVariable([sink, modemOut]) == [[4, 5], [1]])
    }

    @Test(arguments: testMTUs) func longReadsEndExactlyAtMTUBoundaries(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let handle = link.handle(GATTFixture.long)
        // Values that end exactly on a part boundary, one byte either side, and the 512-byte maximum.
        for length in [mtu - 2, mtu - 1, mtu, 2 * (mtu - 1), 2 * (mtu - 1) + 1, 512] where length <= 512 {
            let value = (0..<length).map { UInt8(truncatingIfNeeded: $0 ^ 0x5A) }
            link.database.setValue(value, of: handle)
            #expect(try await link.client.readLong(handle) == value, "length \(length)")
        }
    }

    /// A value longer than an attribute may be (a server that does not check): the same 512 bytes at
    /// every MTU, and the excess reported.
    @Test(arguments: testMTUs) func longReadsStopAtTheAttributeMaximumWhateverTheMTU(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let handle = link.handle(GATTFixture.long)
        let value = (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        link.database.setValue(value, of: handle)
        let read = try await link.client.readLongValue(handle)
        #expect(read.value == Array(value.prefix(512)))
        #expect(read.excess)
        for length in [511, 512] {
            link.database.setValue(Array(value.prefix(length)), of: handle)
            let exact = try await link.client.readLongValue(handle)
            #expect(exact.value == Array(value.prefix(length)) && !exact.excess, "length \(length)")
        }
    }

    @Test(arguments: testMTUs) func writesShortLongAndReliable(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let handle = link.handle(GATTFixture.long)
        try await link.client.write([1, 2, 3], to: handle)
        #expect(link.database.value(of: handle) == [1, 2, 3])
        for length in [mtu - 3, mtu - 2, 2 * (mtu - 5), 2 * (mtu - 5) + 1, 512] where length <= 512 {
            let value = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            try await link.client.write(value, to: handle)
            #expect(link.database.value(of: handle) == value, "length \(length)")
        }
        let secret = link.handle(GATTFixture.secret)
        let longValue = Array(repeating: UInt8(0xAB), count: 300)
        try await link.client.reliableWrite([(handle, longValue), (secret, [9, 9])])
        #expect(link.database.value(of: handle) == longValue)
        #expect(link.database.value(of: secret) == [9, 9])
        try await link.client.writeLong([7, 7], to: handle, offset: 298)
        #expect(link.database.value(of: handle) == Array(repeating: 0xAB, count: 298) + [7, 7])
    }

    @Test(arguments: testMTUs) func writeWithoutResponseReachesTheHandlerInOrder(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let rx = link.handle(GATTFixture.rx)
        let size = min(mtu - 3, 244)
        for index in 0..<200 {
            try await link.client.writeWithoutResponse(Array(repeating: UInt8(index), count: size), to: rx)
        }
        try await link.client.write([0xFF], to: rx)  // a request after the commands: they have all arrived
        #expect(link.received.all == (0..<200).map { Array(repeating: UInt8($0), count: size) } + [[0xFF]])
        await #expect(throws: GATTError.self) {
            try await link.client.writeWithoutResponse(Array(repeating: 0, count: mtu - 2), to: rx)
        }
    }

    @Test(arguments: testMTUs) func reportsTheRightATTErrors(mtu: Int) async throws {
        let link = try await GATTFixture.make(mtu: mtu)
        let client = link.client
        let secret = link.handle(GATTFixture.secret)
        let sink = link.handle(GATTFixture.sink)
        let rx = link.handle(GATTFixture.rx)
        func code(_ body: () async throws -> Void) async -> ATTErrorCode? {
            do {
                try await body()
                return nil
            } catch let error as GATTError {
                guard case .att(let att) = error else { return nil }
                return att.code
            } catch {
                return nil
            }
        }
        #expect(await code { _ = try await client.read(secret) } == .readNotPermitted)
        #expect(await code { try await client.write([1], to: sink) } == .writeNotPermitted)
        #expect(await code { _ = try await client.read(0x0F00) } == .invalidHandle)
        #expect(await code { try await client.write([1], to: 0) } == .invalidHandle)
        #expect(
            await code { try await client.write(Array(repeating: 1, count: 245), to: rx) }
                == .invalidAttributeValueLength
        )
        #expect(await code { try await client.write([0xEE], to: rx) } == ATTErrorCode(rawValue: 0x80))
        #expect(await code { try await client.writeLong([1], to: secret, offset: 10) } == .invalidOffset)
        let cccd = link.vsp.characteristics[0].cccdHandle!
        #expect(await code { try await client.write([1, 0, 0], to: cccd) } == .invalidAttributeValueLength)
        #expect(await code { _ = try await client.readByType(BluetoothUUID(0x2A99)) } == .attributeNotFound)
        #expect(await code { _ = try await client.readMultiple([sink, secret]) } == .readNotPermitted)
        // The failed long write left nothing prepared behind.
        try await client.write([5], to: secret)
        #expect(link.database.value(of: secret) == [5])
    }
}
