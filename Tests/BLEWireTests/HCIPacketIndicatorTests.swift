import BLEWire
import Testing

@Suite struct HCIPacketIndicatorTests {
    @Test func indicatorsMatchTheUARTTransportTable() {
        #expect(HCIPacketIndicator(rawValue: 0x01) == .command)
        #expect(HCIPacketIndicator(rawValue: 0x02) == .acl)
        #expect(HCIPacketIndicator(rawValue: 0x04) == .event)
        #expect(HCIPacketIndicator(rawValue: 0x05) == .iso)
        #expect(HCIPacketIndicator(rawValue: 0x00) == nil)
    }
}
