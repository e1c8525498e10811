import BLEHost
import BLEWire
import Testing

/// How an attribute is named: a handle (`0x0003`) or a UUID, and what a name that is neither says.
@Suite struct AttributeSelectorTests {
    @Test func attributesAreHandlesOrUUIDs() throws {
        #expect(try AttributeSelector(parsing: "0x0003") == .handle(3))
        #expect(try AttributeSelector(parsing: "0XFFFF") == .handle(0xFFFF))
        #expect(try AttributeSelector(parsing: "2A00") == .uuid(.deviceName))
        let long = "ca1c0001-e532-4b1e-9a5e-8d1c2a6f0b01"
        #expect(try AttributeSelector(parsing: long) == .uuid(try #require(BluetoothUUID(long))))
        #expect(AttributeSelector.handle(0x2A).description == "0x002A")
        for (text, message) in [
            ("0x", "is not a handle"), ("0x10000", "is not a handle"), ("0x0000", "does not exist"),
            ("0xg1", "is not a handle"), ("3", "neither a handle (0x0003) nor a UUID"), ("2A0", "neither"),
        ] {
            do {
                _ = try AttributeSelector(parsing: text)
                Issue.record("\(text) was taken for an attribute")
            } catch {
                #expect(error.description.contains(message), "\(text): \(error.description)")
            }
        }
    }
}
