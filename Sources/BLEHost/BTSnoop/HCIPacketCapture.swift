public import BLEWire

/// Where captured HCI packets go: BLELinux's `BTSnoopWriter` writes them to a btsnoop file (the format
/// is `BTSnoopRecord`). The capture transports call it on the threads the packets pass on.
public protocol HCIPacketCapture: Sendable {
    /// Records one H4 packet; `received` is true for controller → host.
    func record(_ indicator: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer, received: Bool)
    /// Writes out what is buffered; returns the errno of the first failed write so far, if any.
    @discardableResult func flush() -> Int32?
}

extension HCIPacketCapture {
    /// Records an ATT PDU as the ACL packet that would carry it (L2CAP CID 4, one unfragmented ACL
    /// packet on `handle`): the kernel path records this way, because there the kernel keeps HCI, ACL
    /// and L2CAP.
    public func recordATT(_ pdu: UnsafeRawBufferPointer, handle: UInt16, received: Bool) {
        withUnsafeTemporaryAllocation(byteCount: 8 + pdu.count, alignment: 1) { packet in
            let aclLength = 4 + pdu.count
            let word = handle & 0x0FFF | (received ? 0b10 : 0b00) << 12
            packet[0] = UInt8(truncatingIfNeeded: word)
            packet[1] = UInt8(truncatingIfNeeded: word >> 8)
            packet[2] = UInt8(truncatingIfNeeded: aclLength)
            packet[3] = UInt8(truncatingIfNeeded: aclLength >> 8)
            packet[4] = UInt8(truncatingIfNeeded: pdu.count)
            packet[5] = UInt8(truncatingIfNeeded: pdu.count >> 8)
            packet[6] = 0x04
            packet[7] = 0x00
            if !pdu.isEmpty { UnsafeMutableRawBufferPointer(rebasing: packet[8...]).copyMemory(from: pdu) }
            record(.acl, UnsafeRawBufferPointer(packet), received: received)
        }
    }
}
