extension HCINumberOfCompletedPacketsEvent {
    /// HCI_Number_Of_Completed_Packets read in place, without allocating (the host's ACL credit path,
    /// one event per batch of sent packets). Borrowed: use it only while the event's bytes are valid.
    public struct View {
        /// The Num_Handles entries, 4 octets each: Connection_Handle, Num_Completed_Packets.
        @usableFromInline let entries: UnsafeRawBufferPointer

        /// Decodes a whole event packet (event code 0x13 first).
        @inlinable
        public init(event: UnsafeRawBufferPointer) throws(DecodeError) {
            var reader = ByteReader(event)
            try reader.require(HCINumberOfCompletedPacketsEvent.minimumLength)
            let code = try reader.readUInt8()
            guard code == HCINumberOfCompletedPacketsEvent.eventCode else {
                throw DecodeError(offset: 0, reason: .invalidValue(field: "eventCode", value: UInt64(code)))
            }
            let parameterLength = Int(try reader.readUInt8())
            var body = try reader.limited(to: parameterLength)
            let count = Int(try body.readUInt8())
            entries = try body.readBytes(count * 4)
        }

        /// Num_Handles.
        @inlinable public var count: Int { entries.count / 4 }

        /// The `index`th entry (0 ≤ index < count).
        @inlinable
        public subscript(index: Int) -> (connectionHandle: UInt16, completedPackets: UInt16) {
            let base = index * 4
            return (
                UInt16(entries[base]) | UInt16(entries[base + 1]) << 8,
                UInt16(entries[base + 2]) | UInt16(entries[base + 3]) << 8
            )
        }
    }
}
