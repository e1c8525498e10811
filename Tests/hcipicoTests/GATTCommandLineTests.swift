import BLETesting
import Foundation
import Testing

/// `hcipico gatt …` through the built binary against `sim:calculator` and `sim:pico`.
@Suite struct GATTCommandLineTests {
    static let calculator = "CA1C0001-E532-4B1E-9A5E-8D1C2A6F0B01"
    static let vspTX = "569a2000-b87f-490c-92cb-11ba5ea5167c"
    static let vspRX = "569a2001-b87f-490c-92cb-11ba5ea5167c"

    static func gatt(_ arguments: [String]) async throws -> CommandLineTests.Result {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await CommandLineTests.offPool { try CommandLineTests.run(["gatt"] + arguments, in: directory) }
    }

    @Test func servicesShowsTheCalculatorTree() async throws {
        let result = try await Self.gatt(["sim:calculator", "services"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "service 1800 GAP  0x0001–0x0003",
                "  characteristic 2A00 Device Name  [read]  declaration 0x0002 value 0x0003  \"ESP32 Calculator\"",
                "service CA1C0000-E532-4B1E-9A5E-8D1C2A6F0B01 Calculator service  0x0004–0x0008",
                "  characteristic \(Self.calculator) Calculator (write operand1 operand2 operator; result notified)"
                    + "  [read write-without-response write notify indicate]  declaration 0x0005 value 0x0006",
                "    descriptor 2902 Client Characteristic Configuration  0x0007",
                "    descriptor 2901 Characteristic User Description  0x0008",
            ],
            "\(result.output)"
        )
    }

    @Test func servicesJSONIsOneObjectPerLine() async throws {
        let result = try await Self.gatt(["services", "sim:pico", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let objects = try result.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(
            objects.map { $0["type"] as? String } == ["service", "characteristic"] + ["service"]
                + ["characteristic", "descriptor"] + ["characteristic"] + ["characteristic", "descriptor"]
                + ["characteristic"]
        )
        // GAP first, with the Device Name read during discovery, then the Laird VSP service.
        #expect(objects[0]["name"] as? String == "GAP")
        #expect(objects[0]["handle"] as? Int == 1 && objects[0]["end_handle"] as? Int == 3)
        #expect(objects[1]["uuid"] as? String == "2A00" && objects[1]["value_text"] as? String == "PicoSim")
        #expect(objects[2]["name"] as? String == "Laird Virtual Serial Port service")
        #expect(objects[2]["handle"] as? Int == 4 && objects[2]["end_handle"] as? Int == 14)
        let tx = objects[3]
        #expect((tx["uuid"] as? String)?.lowercased() == Self.vspTX)
        #expect(tx["value_handle"] as? Int == 6 && tx["properties"] as? [String] == ["notify"])
        #expect(objects[5]["properties"] as? [String] == ["write-without-response", "write"])
        #expect(objects[4]["name"] as? String == "Client Characteristic Configuration")
    }

    @Test func writesAnsweredByNotificationArePrintedAsTheyCome() async throws {
        // 7 * 6, 10 / 0, a request of one byte, 5 - 3: four answers (int32 LE + status).
        let result = try await Self.gatt([
            "sim:calculator", "subscribe", Self.calculator, "--count", "4", "--format", "jsonl",
            "--write", "07062a", "--write", "0a002f", "--write", "01", "--write", "05:03:2d",
        ])
        #expect(result.status == 0, "\(result.error)")
        let objects = try result.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["value_hex"] as? String } == ["2a00000000", "0000000001", "0000000003", "0200000000"])
        #expect(objects.allSatisfy { $0["handle"] as? Int == 6 })
        let now = Date().timeIntervalSince1970
        for object in objects {
            let t = try #require(object["t"] as? Double)
            #expect(abs(t - now) < 60)
        }
        #expect(objects[0]["text"] as? String == "*\u{0}\u{0}\u{0}\u{0}")

        let hex = try await Self.gatt(["sim:calculator", "subscribe", "0x0006", "--count", "1", "--write", "ff022a"])
        #expect(hex.status == 0, "\(hex.error)")
        let line = hex.output.split(separator: " ").map(String.init)
        #expect(line.count == 3 && line[1] == "0x0006" && line[2] == "fe01000000\n", "\(hex.output)")
        #expect(line.first?.hasSuffix("Z") == true && line.first?.count == 27, "\(hex.output)")
    }

    @Test func indicationsArePrintedToo() async throws {
        let result = try await Self.gatt([
            "sim:calculator", "subscribe", "0x0006", "--indicate", "--count", "3", "--format", "text",
            "--write", "0c0c2a", "--write", "0c0c2f", "--write", "0c0c3f",
        ])
        #expect(result.status == 0, "\(result.error)")
        let values = result.output.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) }
        // 144 = 0x90, 1, then unknown operator '?': text with control characters escaped.
        #expect(
            values == ["\\x90\\x00\\x00\\x00\\x00", "\\x01\\x00\\x00\\x00\\x00", "\\x00\\x00\\x00\\x00\\x02"],
            "\(result.output)"
        )
    }

    @Test func readsTheDeviceNameAndLongValues() async throws {
        let text = try await Self.gatt(["sim:calculator", "read", "2A00", "--text"])
        #expect(text.status == 0 && text.output == "ESP32 Calculator\n", "\(text.error)")
        let json = try await Self.gatt(["sim:calculator", "read", "0x0003", "--json"])
        #expect(
            json.output
                == "{\"handle\":3,\"value_hex\":\"45535033322043616c63756c61746f72\",\"text\":\"ESP32 Calculator\"}\n"
        )
        // The user description is far longer than ATT_MTU − 1 = 22: Read Blob fetches the rest.
        let long = try await Self.gatt(["sim:calculator", "read", "2901", "--mtu", "23", "--text"])
        #expect(long.status == 0, "\(long.error)")
        #expect(long.output.hasPrefix("Calculator: write 3 bytes") && long.output.hasSuffix("3 wrong length).\n"))
        // A long write at MTU 23 is prepared in parts and executed.
        let write = try await Self.gatt([
            "sim:calculator", "write", "0x0006", "--mtu", "23", String(repeating: "2b", count: 40),
        ])
        #expect(write.status == 0, "\(write.error)")
    }

    @Test func writeTakesAFileWithinTheAttributeLimit() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data([7, 6, 0x2A]).write(to: directory.appendingPathComponent("request.bin"))
        try Data(count: 513).write(to: directory.appendingPathComponent("big.bin"))
        func gatt(_ arguments: [String]) async throws -> CommandLineTests.Result {
            try await CommandLineTests.offPool { try CommandLineTests.run(["gatt"] + arguments, in: directory) }
        }
        let written = try await gatt(["sim:calculator", "write", "0x0006", "--file", "request.bin"])
        #expect(written.status == 0, "\(written.error)")
        let big = try await gatt(["sim:calculator", "write", "0x0006", "--file", "big.bin"])
        #expect(big.status == 64 && big.error.contains("513 bytes; an attribute value is at most 512"), "\(big.error)")
        let missing = try await gatt(["sim:calculator", "write", "0x0006", "--file", "missing.bin"])
        #expect(missing.status == 64 && missing.error.contains("cannot read it"))
        let both = try await gatt(["sim:calculator", "write", "0x0006", "00", "--file", "request.bin"])
        #expect(both.status == 64 && both.error.contains("not both"))
        let text = try await gatt(["sim:calculator", "write", "0x0006", "--text", "7*6"])
        #expect(text.status == 0, "\(text.error)")
    }

    @Test func mtuIsNegotiated() async throws {
        #expect(try await Self.gatt(["sim:calculator", "mtu"]).output == "517\n")
        #expect(try await Self.gatt(["sim:pico", "mtu", "--request", "100"]).output == "100\n")
        #expect(try await Self.gatt(["sim:pico", "mtu", "--request", "23"]).output == "23\n")
        #expect(try await Self.gatt(["sim:pico", "mtu", "--request", "9"]).status == 64)
    }

    @Test func badInputAndDeviceErrorsAreToldApart() async throws {
        let badHandle = try await Self.gatt(["sim:calculator", "read", "0x10000"])
        #expect(badHandle.status == 64 && badHandle.error.contains("'0x10000' is not a handle"), "\(badHandle.error)")
        let badUUID = try await Self.gatt(["sim:calculator", "read", "zz"])
        #expect(badUUID.status == 64 && badUUID.error.contains("neither a handle"))
        let badHex = try await Self.gatt(["sim:calculator", "write", "0x0006", "07g62a"])
        #expect(badHex.status == 64 && badHex.error.contains("column 3 is not a hex digit"), "\(badHex.error)")
        let odd = try await Self.gatt(["sim:calculator", "write", "0x0006", "070"])
        #expect(odd.status == 64 && odd.error.contains("odd number of hex digits"))
        let ambiguous = try await Self.gatt(["sim:pico", "read", "2902"])
        #expect(ambiguous.status == 64, "\(ambiguous.error)")
        #expect(ambiguous.error.contains("2902 is ambiguous: 2 attributes"))
        #expect(ambiguous.error.contains("handle 0x0007") && ambiguous.error.contains("handle 0x000C"))
        let missing = try await Self.gatt(["sim:pico", "subscribe", "2A19"])
        #expect(missing.status == 64 && missing.error.contains("no characteristic 2A19"), "\(missing.error)")
        let notIndicating = try await Self.gatt([
            "sim:pico", "subscribe", "569a2002-b87f-490c-92cb-11ba5ea5167c", "--indicate",
        ])
        #expect(
            notIndicating.status == 64 && notIndicating.error.contains("does not indicate"),
            "\(notIndicating.error)"
        )
        let notNotifying = try await Self.gatt(["sim:calculator", "subscribe", "2A00"])
        #expect(notNotifying.status == 64 && notNotifying.error.contains("neither notify nor indicate"))
        let tooLong = try await Self.gatt([
            "sim:pico", "write", Self.vspRX, "--without-response", "--mtu", "23", String(repeating: "41", count: 21),
        ])
        #expect(tooLong.status == 64 && tooLong.error.contains("exceeds ATT_MTU − 3 = 20"), "\(tooLong.error)")
        let readOnly = try await Self.gatt(["sim:calculator", "write", "0x0003", "41"])
        #expect(readOnly.status == 3 && readOnly.error.contains("Write Not Permitted (0x03)"), "\(readOnly.error)")
        let noSuchHandle = try await Self.gatt(["sim:calculator", "read", "0x0099"])
        #expect(noSuchHandle.status == 3 && noSuchHandle.error.contains("Invalid Handle (0x01)"))
    }

    @Test func ctrlCEndsASubscriptionCleanly() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The Pico's version reply to "t\n" arrives on TX, then the subscription waits for Ctrl-C.
        let program = try CommandProcess(
            [
                "gatt", "sim:pico", "subscribe", Self.vspTX, "--format", "text", "--write-to", Self.vspRX,
                "--write", "740a",
            ],
            in: directory
        )
        _ = await program.waitAsync { program.standardOutput.contains("R*") }
        program.send(SIGINT)
        let status = await program.finishAsync().status
        #expect(status == 130)
        let text = program.standardOutput
        #expect(text.contains("0x0006 tespico"), "\(text)")
    }

    @Test func aWriteCommandToACharacteristicThatDoesNotTakeOneIsRefused() async throws {
        let refused = try await Self.gatt(["sim:calculator", "write", "2A00", "01", "--without-response"])
        #expect(refused.status == 64, "\(refused.error)")
        #expect(refused.error.contains("not write without response; give --force"), "\(refused.error)")
        let forced = try await Self.gatt(["sim:calculator", "write", "0x0003", "01", "--without-response", "--force"])
        #expect(forced.status == 0, "\(forced.error)")
        let declared = try await Self.gatt(["sim:calculator", "write", Self.calculator, "07062a", "--without-response"])
        #expect(declared.status == 0, "\(declared.error)")
    }
}
