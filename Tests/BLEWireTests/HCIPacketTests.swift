import BLEWire
import Testing

/// Expected octets come from the traces in the project's test-peer notes (Bumble host and the Linux
/// kernel against Bumble's controller) and from Bumble's own HCI encoder, an independent implementation.
@Suite struct HCIPacketTests {
    static let peer = BluetoothAddress(value: 0xF011_2233_4455)

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    static let commands: [(command: HCICommand, bytes: String)] = [
        (.reset(.init()), "030c00"),
        (.setEventMask(.init(eventMask: 0x3DBF_F807_BFFF_9FFF)), "010c08 ff9fffbf07f8bf3d"),
        (.leSetEventMask(.init(leEventMask: 0x007B_ED0F_FFF7_FFFF)), "012008 fffff7ff0fed7b00"),
        (
            .leWriteSuggestedDefaultDataLength(.init(suggestedMaxTxOctets: 251, suggestedMaxTxTime: 2120)),
            "242004 fb00 4808"
        ),
        (
            .leSetScanParameters(
                .init(
                    leScanType: 1,
                    leScanInterval: 0x60,
                    leScanWindow: 0x60,
                    ownAddressType: 1,
                    scanningFilterPolicy: 0
                )
            ),
            "0b2007 01 6000 6000 01 00"
        ),
        (.leSetScanEnable(.init(leScanEnable: 1, filterDuplicates: 1)), "0c2002 01 01"),
        (
            .leCreateConnection(
                .init(
                    leScanInterval: 0x60,
                    leScanWindow: 0x60,
                    initiatorFilterPolicy: 0,
                    peerAddressType: 1,
                    peerAddress: peer,
                    ownAddressType: 1,
                    connectionIntervalMin: 0x0C,
                    connectionIntervalMax: 0x18,
                    maxLatency: 0,
                    supervisionTimeout: 0x48,
                    minCELength: 0,
                    maxCELength: 0
                )
            ),
            "0d2019 6000 6000 00 01 5544332211f0 01 0c00 1800 0000 4800 0000 0000"
        ),
        (.disconnect(.init(connectionHandle: 1, reason: 0x13)), "060403 0100 13"),
        (
            .leSetExtendedScanParameters(
                .init(
                    ownAddressType: 1,
                    scanningFilterPolicy: 0,
                    scanningPHYs: 0x05,
                    phys: [
                        .init(scanType: 1, scanInterval: 0x60, scanWindow: 0x30),
                        .init(scanType: 0, scanInterval: 0x30, scanWindow: 0x30),
                    ]
                )
            ),
            "41200d 01 00 05 01 6000 3000 00 3000 3000"
        ),
        (
            .leExtendedCreateConnection(
                .init(
                    initiatorFilterPolicy: 0,
                    ownAddressType: 1,
                    peerAddressType: 1,
                    peerAddress: peer,
                    initiatingPHYs: 1,
                    phys: [
                        .init(
                            scanInterval: 0x60,
                            scanWindow: 0x60,
                            connectionIntervalMin: 0x18,
                            connectionIntervalMax: 0x28,
                            maxLatency: 0,
                            supervisionTimeout: 0x2A,
                            minCELength: 0,
                            maxCELength: 0
                        )
                    ]
                )
            ),
            "43201a 00 01 01 5544332211f0 01 6000 6000 1800 2800 0000 2a00 0000 0000"
        ),
    ]

    @Test(arguments: 0..<commands.count)
    func commandsMatchKnownTraces(_ index: Int) throws {
        let (command, text) = Self.commands[index]
        let bytes = Self.hex(text)
        #expect(command.encodedBytes == bytes)
        #expect(try HCICommand(bytes: bytes) == command)
    }

    static let events: [(event: HCIEvent, bytes: String)] = [
        (
            .numberOfCompletedPackets(
                .init(handles: [
                    .init(connectionHandle: 1, numCompletedPackets: 3),
                    .init(connectionHandle: 2, numCompletedPackets: 4),
                ])
            ),
            "1309 02 0100 0300 0200 0400"
        ),
        (
            .leAdvertisingReport(
                .init(reports: [
                    .init(eventType: 0, addressType: 1, address: peer, data: [0x02, 0x01, 0x06], rssi: -60),
                    .init(
                        eventType: 4,
                        addressType: 0,
                        address: BluetoothAddress(value: 0x0102_0304_0506),
                        data: [],
                        rssi: -70
                    ),
                ])
            ),
            "3e19 02 02 00 01 5544332211f0 03 020106 c4 04 00 060504030201 00 ba"
        ),
        (
            .leConnectionComplete(
                .init(
                    status: .success,
                    connectionHandle: 1,
                    role: 0,
                    peerAddressType: 1,
                    peerAddress: peer,
                    connectionInterval: 0x18,
                    peripheralLatency: 0,
                    supervisionTimeout: 0x48,
                    centralClockAccuracy: 0
                )
            ),
            "3e13 01 00 0100 00 01 5544332211f0 1800 0000 4800 00"
        ),
        (.commandStatus(.init(status: .success, numHCICommandPackets: 1, commandOpcode: 0x200D)), "0f0400 01 0d20"),
        (.disconnectionComplete(.init(status: .success, connectionHandle: 1, reason: 0x16)), "050400 0100 16"),
    ]

    @Test(arguments: 0..<events.count)
    func eventsMatchKnownTraces(_ index: Int) throws {
        let (event, text) = Self.events[index]
        let bytes = Self.hex(text)
        #expect(event.encodedBytes == bytes)
        #expect(try HCIEvent(bytes: bytes) == event)
    }

    @Test func commandCompleteCarriesTypedReturnParameters() throws {
        // Read_BD_ADDR completes with status 0 and the address, least significant octet first.
        let bytes = Self.hex("0e0a 01 0910 00 0200000000c0")
        guard case .commandComplete(let complete) = try HCIEvent(bytes: bytes) else {
            Issue.record("not a Command Complete")
            return
        }
        #expect(complete.completes(HCIReadBDADDR.self))
        #expect(complete.status == .success)
        let parameters = try complete.returnParameters(as: HCIReadBDADDR.ReturnParameters.self)
        #expect(parameters.bdAddr.description == "C0:00:00:00:00:02")
        #expect(throws: DecodeError(offset: 5, reason: .truncated(needed: 9, available: 1))) {
            try HCICommandCompleteEvent(numHCICommandPackets: 1, commandOpcode: 0x1001, returnParameters: [0x00])
                .returnParameters(as: HCIReadLocalVersionInformation.ReturnParameters.self)
        }
    }

    @Test func laterSpecFieldsAreSkippedAndShortLengthsLocated() throws {
        // A Disconnection Complete with one octet more than Core 5.4 defines still decodes.
        let longer = Self.hex("050500 0100 16 ff")
        #expect(
            try HCIEvent(bytes: longer)
                == .disconnectionComplete(.init(status: .success, connectionHandle: 1, reason: 0x16))
        )
        // A length octet that claims more than is present.
        #expect(throws: DecodeError(offset: 2, reason: .truncated(needed: 9, available: 4))) {
            try HCIEvent(bytes: Self.hex("050900 0100 16"))
        }
        // A length octet too short for the parameters: located inside the parameters.
        #expect(throws: DecodeError(offset: 5, reason: .truncated(needed: 1, available: 0))) {
            try HCIEvent(bytes: Self.hex("050300 0100 16"))
        }
    }

    @Test func unknownCodesAreTypedErrors() {
        #expect(throws: DecodeError(offset: 0, reason: .unknownCode(kind: "HCI event code", code: 0xFF))) {
            try HCIEvent(bytes: [0xFF, 0x00])
        }
        #expect(throws: DecodeError(offset: 2, reason: .unknownCode(kind: "LE subevent code", code: 0x7F))) {
            try HCIEvent(bytes: [0x3E, 0x01, 0x7F])
        }
        #expect(throws: DecodeError(offset: 0, reason: .unknownCode(kind: "HCI command opcode", code: 0xFC00))) {
            try HCICommand(bytes: [0x00, 0xFC, 0x00])
        }
        #expect(throws: DecodeError(offset: 0, reason: .truncated(needed: 2, available: 1))) {
            try HCIEvent(bytes: [0x3E])
        }
    }

    @Test func supportedCommandsBitmap() {
        let bitmap = HCISupportedCommands(supporting: [HCILESetExtendedScanParameters.self, HCIReset.self])
        #expect(bitmap.octets[37] == 1 << 5)
        #expect(bitmap.octets[5] == 1 << 7)
        #expect(bitmap.supports(HCILESetExtendedScanParameters.self))
        #expect(!bitmap.supports(HCILEExtendedCreateConnection.self))
        #expect(bitmap.supports(opcode: 0x0C03))
        #expect(!bitmap.supports(opcode: 0x1002))
        #expect(!HCISupportedCommands(octets: []).supports(HCIReset.self))
        #expect(HCILEReadBufferSizeV2.ogf == 0x08 && HCILEReadBufferSizeV2.ocf == 0x060)
    }

    @Test func aclHeaderPacksFlags() throws {
        let header = HCIACLHeader(handle: 0x0001, packetBoundary: .firstFlushable, length: 27)
        #expect(header.encodedBytes == [0x01, 0x20, 0x1B, 0x00])
        #expect(
            try HCIACLHeader(bytes: [0x01, 0x10, 0x05, 0x00])
                == HCIACLHeader(handle: 1, packetBoundary: .continuing, length: 5)
        )
        #expect(throws: DecodeError(offset: 0, reason: .truncated(needed: 4, available: 3))) {
            try HCIACLHeader(bytes: [0x01, 0x20, 0x1B])
        }
    }
}

@Suite struct HCICompletedPacketsViewTests {
    static func viaView(_ bytes: [UInt8]) throws(DecodeError) -> [UInt16] {
        let result: Result<[UInt16], DecodeError> = bytes.withUnsafeBytes { buffer in
            do throws(DecodeError) {
                let view = try HCINumberOfCompletedPacketsEvent.View(event: buffer)
                return .success((0..<view.count).flatMap { [view[$0].connectionHandle, view[$0].completedPackets] })
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @Test func readsEntriesInPlace() throws {
        #expect(try Self.viaView([0x13, 0x09, 0x02, 0x01, 0x00, 0x03, 0x00, 0x02, 0x00, 0x04, 0x00]) == [1, 3, 2, 4])
        #expect(throws: DecodeError(offset: 3, reason: .truncated(needed: 8, available: 4))) {
            try Self.viaView([0x13, 0x05, 0x02, 0x01, 0x00, 0x03, 0x00])
        }
        #expect(throws: DecodeError(offset: 0, reason: .invalidValue(field: "eventCode", value: 0x05))) {
            try Self.viaView([0x05, 0x01, 0x00])
        }
    }
}
