import BLEHost
import BLELinux
import BLETesting
import BLEWire
import Foundation
import Testing

@Suite("btsnoop capture")
struct BTSnoopTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hcihost-\(UUID().uuidString).btsnoop").path
    }

    @Test("the capture tap writes every packet with its direction; the file parses back")
    func captureRoundTrip() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        let controller = FakeHCIController()
        let host = HCIHost(transport: BTSnoopCaptureTransport(wrapping: controller, into: writer))
        let before = Int64(Date().timeIntervalSince1970 * 1_000_000)
        try await host.start()
        let link = try await host.connect(to: HostHarness.peer, timeout: .seconds(2))
        try link.att.send([0x02, 0xF7, 0x00])
        controller.settle()
        writer.close()
        let after = Int64(Date().timeIntervalSince1970 * 1_000_000)

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[0..<16]) == Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA])
        let records = try bytes.withUnsafeBytes { try BTSnoopRecord.parseFile($0) }
        let commands = records.filter { $0.indicator == .command }
        #expect(commands.count == controller.commandOpcodes.count)
        #expect(commands.allSatisfy { !$0.received })
        #expect(commands.first?.packet == [0x03, 0x0C, 0x00])  // HCI_Reset
        #expect(records.filter { $0.indicator == .event }.allSatisfy { $0.received })
        let acl = try #require(records.first { $0.indicator == .acl })
        #expect(!acl.received && acl.packet == [UInt8(link.handle), 0x00, 7, 0, 3, 0, 4, 0, 0x02, 0xF7, 0x00])
        #expect(records.allSatisfy { $0.unixMicroseconds >= before && $0.unixMicroseconds <= after })
        #expect(records.allSatisfy { $0.originalLength == $0.packet.count + 1 })
        // Flags on the wire: bit 1 for commands/events, bit 0 for received.
        #expect(BTSnoopRecord.flags(received: false, indicator: .command) == 2)
        #expect(BTSnoopRecord.flags(received: true, indicator: .event) == 3)
        #expect(BTSnoopRecord.flags(received: true, indicator: .acl) == 1)
    }

    @Test("ATT PDUs of the kernel path are recorded as the ACL packets that carry them")
    func attAsACL() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        [UInt8]([0x1B, 0x12, 0x00, 0x65]).withUnsafeBytes { writer.recordATT($0, handle: 0x40, received: true) }
        [UInt8]([0x12, 0x13, 0x00, 0x01, 0x00]).withUnsafeBytes { writer.recordATT($0, handle: 0x40, received: false) }
        writer.close()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let records = try bytes.withUnsafeBytes { try BTSnoopRecord.parseFile($0) }
        #expect(records.count == 2)
        #expect(records[0].received && records[0].indicator == .acl)
        #expect(records[0].packet == [0x40, 0x20, 8, 0, 4, 0, 4, 0, 0x1B, 0x12, 0x00, 0x65])
        #expect(
            !records[1].received && records[1].packet == [0x40, 0x00, 9, 0, 5, 0, 4, 0, 0x12, 0x13, 0x00, 0x01, 0x00]
        )
    }

    @Test(
        "btmon reads our capture: commands, events and ACL with their directions",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/btmon"), "btmon (apt bluez) not installed")
    )
    func btmonReadsCapture() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        let controller = FakeHCIController()
        let host = HCIHost(transport: BTSnoopCaptureTransport(wrapping: controller, into: writer))
        try await host.start()
        let link = try await host.connect(to: HostHarness.peer, timeout: .seconds(2))
        try link.att.send([0x02, 0xF7, 0x00])
        controller.l2cap(handle: link.handle, channel: 4, [0x03, 0x05, 0x02])
        controller.settle()
        writer.close()
        let outcome = try TestProgram.run("/usr/bin/btmon", ["-r", path])
        let text = outcome.outputText
        #expect(outcome.status == 0)
        #expect(text.contains("< HCI Command: Reset"))
        #expect(text.contains("> HCI Event: Command Complete"))
        #expect(text.contains("LE Connection Complete"))
        #expect(text.contains("< ACL Data TX"))
        #expect(text.contains("> ACL Data RX"))
        #expect(text.contains("ATT: Exchange MTU Request"))
        #expect(text.contains("ATT: Exchange MTU Response"))
    }

    @Test("a damaged file is a located error")
    func damaged() throws {
        var writer = ByteWriter()
        BTSnoopRecord.encodeFileHeader(into: &writer)
        BTSnoopRecord(received: true, indicator: .event, unixMicroseconds: 0, packet: [0x0E, 0x01]).encode(
            into: &writer
        )
        var bytes = writer.bytes
        bytes.removeLast()
        #expect(throws: DecodeError.self) { try bytes.withUnsafeBytes { try BTSnoopRecord.parseFile($0) } }
        var badFlags = writer.bytes
        badFlags[16 + 11] = 0x00  // a received event without the command/event bit
        let error = badFlags.withUnsafeBytes { bytes -> DecodeError? in
            do throws(DecodeError) { _ = try BTSnoopRecord.parseFile(bytes) } catch { return error }
            return nil
        }
        #expect(error?.offset == 24)
    }

    @Test("a timestamp past 2^63 is refused with its offset, not a trap (a fuzzer's finding)")
    func aTimestampPastTwoToTheSixtyThirdIsRefused() throws {
        var file: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        file += [0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0]  // lengths, flags (command), drops
        file += [0x80, 0, 0, 0, 0, 0, 0, 0]  // the timestamp: 2^63
        file += [0x01, 0x03, 0x0C, 0x00]  // an HCI Reset command
        let thrown = #expect(throws: DecodeError.self) { try file.withUnsafeBytes { try BTSnoopRecord.parseFile($0) } }
        #expect(thrown?.offset == 32)
    }
}
