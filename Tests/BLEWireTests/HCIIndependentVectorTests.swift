import BLEWire
import Testing

/// Commands and LE Meta events whose expected octets come from Bumble's HCI encoder (0.0.236), an
/// implementation independent of ours.
@Suite struct HCIIndependentVectorTests {
    /// More commands, octets from Bumble's encoder.
    static let moreCommands: [(command: HCICommand, bytes: String)] = [
        (
            .leRemoteConnectionParameterRequestReply(
                .init(
                    connectionHandle: 1,
                    intervalMin: 6,
                    intervalMax: 12,
                    maxLatency: 0,
                    timeout: 300,
                    minCELength: 0,
                    maxCELength: 0
                )
            ),
            "20200e 0100 0600 0c00 0000 2c01 0000 0000"
        ),
        (.leRemoteConnectionParameterRequestNegativeReply(.init(connectionHandle: 1, reason: 0x3B)), "212003 0100 3b"),
        (
            .leSetPHY(.init(connectionHandle: 1, allPHYs: 0, txPHYs: 2, rxPHYs: 2, phyOptions: 0)),
            "322007 0100 00 02 02 0000"
        ),
        (.leSetDataLength(.init(connectionHandle: 1, txOctets: 251, txTime: 2120)), "222006 0100 fb00 4808"),
        (
            .leConnectionUpdate(
                .init(
                    connectionHandle: 1,
                    connectionIntervalMin: 6,
                    connectionIntervalMax: 12,
                    maxLatency: 0,
                    supervisionTimeout: 300,
                    minCELength: 0,
                    maxCELength: 0
                )
            ),
            "13200e 0100 0600 0c00 0000 2c01 0000 0000"
        ),
        (
            .leSetExtendedScanEnable(.init(enable: 1, filterDuplicates: 1, duration: 0, period: 0)),
            "422006 01 01 0000 0000"
        ),
        (.leSetRandomAddress(.init(randomAddress: BluetoothAddress(value: 0xC000_0000_0002))), "052006 0200000000c0"),
        (.leReadPHY(.init(connectionHandle: 1)), "302002 0100"),
    ]

    @Test(arguments: 0..<moreCommands.count)
    func commandsMatchAnIndependentEncoder(_ index: Int) throws {
        let (command, text) = Self.moreCommands[index]
        let bytes = HCIPacketTests.hex(text)
        #expect(command.encodedBytes == bytes)
        #expect(try HCICommand(bytes: bytes) == command)
    }

    /// More LE Meta events, octets from Bumble's encoder.
    static let moreEvents: [(event: HCIEvent, bytes: String)] = [
        (
            .leEnhancedConnectionCompleteV2(
                .init(
                    status: .success,
                    connectionHandle: 0x41,
                    role: 1,
                    peerAddressType: 1,
                    peerAddress: HCIPacketTests.peer,
                    localResolvablePrivateAddress: BluetoothAddress(value: 0),
                    peerResolvablePrivateAddress: BluetoothAddress(value: 0),
                    connectionInterval: 0x18,
                    peripheralLatency: 0,
                    supervisionTimeout: 0x48,
                    centralClockAccuracy: 0,
                    advertisingHandle: 0xFF,
                    syncHandle: 0xFFFF
                )
            ),
            "3e22 29 00 4100 01 01 5544332211f0 000000000000 000000000000 1800 0000 4800 00 ff ffff"
        ),
        (
            .leDataLengthChange(
                .init(connectionHandle: 1, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 251, maxRxTime: 2120)
            ),
            "3e0b 07 0100 fb00 4808 fb00 4808"
        ),
        (
            .lePHYUpdateComplete(.init(status: .success, connectionHandle: 1, txPHY: 2, rxPHY: 2)),
            "3e06 0c 00 0100 02 02"
        ),
        (
            .leRemoteConnectionParameterRequest(
                .init(connectionHandle: 1, intervalMin: 6, intervalMax: 12, maxLatency: 0, timeout: 300)
            ),
            "3e0b 06 0100 0600 0c00 0000 2c01"
        ),
        (
            .leReadRemoteFeaturesComplete(
                .init(status: .success, connectionHandle: 1, leFeatures: 0x0000_0000_0001_79FF)
            ),
            "3e0c 04 00 0100 ff79010000000000"
        ),
        (
            .leConnectionUpdateComplete(
                .init(
                    status: .success,
                    connectionHandle: 1,
                    connectionInterval: 6,
                    peripheralLatency: 0,
                    supervisionTimeout: 300
                )
            ),
            "3e0a 03 00 0100 0600 0000 2c01"
        ),
        (
            .leExtendedAdvertisingReport(
                .init(reports: [
                    .init(
                        eventType: 0x13,
                        addressType: 1,
                        address: HCIPacketTests.peer,
                        primaryPHY: 1,
                        secondaryPHY: 0,
                        advertisingSID: 0xFF,
                        txPower: 127,
                        rssi: -50,
                        periodicAdvertisingInterval: 0,
                        directAddressType: 0,
                        directAddress: BluetoothAddress(value: 0),
                        data: [0x02, 0x01, 0x06]
                    )
                ])
            ),
            "3e1d 0d 01 1300 01 5544332211f0 01 00 ff 7f ce 0000 00 000000000000 03 020106"
        ),
    ]

    @Test(arguments: 0..<moreEvents.count)
    func eventsMatchAnIndependentEncoder(_ index: Int) throws {
        let (event, text) = Self.moreEvents[index]
        let bytes = HCIPacketTests.hex(text)
        #expect(event.encodedBytes == bytes)
        #expect(try HCIEvent(bytes: bytes) == event)
    }
}
