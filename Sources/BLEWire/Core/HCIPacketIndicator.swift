/// The one-byte packet indicator that precedes every HCI packet on an H4 (UART) transport, and that
/// the kernel's raw HCI socket and `HCI_CHANNEL_USER` use too.
///
/// Core 5.4 Vol 4 Part A §2 (UART transport layer), Table 2.1; ISO added in Core 5.2.
public enum HCIPacketIndicator: UInt8, Sendable, CaseIterable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}
