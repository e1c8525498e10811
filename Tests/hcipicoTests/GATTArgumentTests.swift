import ArgumentParser
import BLEHost
import BLEWire
import DeviceLinks
import PicoLink
import Testing

@testable import hcipico

/// What `hcipico gatt` accepts before anything is opened: the argument order, attributes, hex values,
/// and the exit status each failure maps to.
@Suite struct GATTArgumentTests {
    @Test func theDeviceMayComeBeforeTheSubcommand() {
        #expect(
            GATTCommand.reordered(["gatt", "sim:calculator", "read", "2A00"])
                == ["gatt", "read", "sim:calculator", "2A00"]
        )
        #expect(
            GATTCommand.reordered(["gatt", "AA:BB:CC:DD:EE:FF", "--random", "--transport", "tcp:h:1", "services"])
                == ["gatt", "services", "AA:BB:CC:DD:EE:FF", "--random", "--transport", "tcp:h:1"]
        )
        // Already in the parser's order, or not a gatt command line: unchanged.
        for line in [
            ["gatt", "services", "sim"], ["gatt", "--help"], ["connect", "sim", "read"], ["gatt", "sim", "nothing"],
        ] {
            #expect(GATTCommand.reordered(line) == line)
        }
    }

    /// An attribute the command line names badly is a usage error (exit 64) that says why
    /// (`AttributeSelectorTests` has the forms).
    @Test func aBadAttributeIsAUsageError() throws {
        #expect(try AttributeSelector(argument: "0x0003") == .handle(3))
        do {
            _ = try AttributeSelector(argument: "0x0000")
            Issue.record("handle 0x0000 was taken")
        } catch {
            #expect(error.message.contains("does not exist"), "\(error.message)")
        }
    }

    /// Bad hex is a usage error (exit 64) that says where (`AttributeValueTextTests` has the forms).
    @Test func badHexIsAUsageError() throws {
        #expect(try ValueText.parseHex("0x01 02:FF") == [1, 2, 0xFF])
        do {
            _ = try ValueText.parseHex("0g")
            Issue.record("0g was accepted")
        } catch {
            #expect(error.message.contains("column 2 is not a hex digit"), "\(error.message)")
        }
        #expect(JSONText.quoted("q\"\u{0}\n") == "\"q\\\"\\u0000\\n\"")
    }

    @Test func gattFailuresMapToTheirExitStatus() {
        let att = GATTError.att(ATTError(code: .writeNotPermitted, handle: 3, request: 0x12))
        #expect(att.exitStatus == .deviceError)
        #expect(att.description.contains("Write Not Permitted (0x03)"))
        #expect(GATTError.transactionTimeout(request: 0x0A).exitStatus == .timeout)
        #expect(GATTError.disconnected(.disconnected(reason: nil)).exitStatus == .connectionLost)
        #expect(GATTError.notFound("x").exitStatus == .badInput)
        #expect(GATTError.invalidArgument("x").exitStatus == .badInput)
    }
}
