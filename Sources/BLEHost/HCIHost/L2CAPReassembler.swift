/// Rebuilds L2CAP frames from ACL fragments by the frame's own length (Core 5.4 Vol 3 Part A §7.2),
/// not by the controller's advertised buffer size: controllers may send packets larger than they
/// advertise. A frame that arrives whole is delivered from the packet itself; only fragmented frames
/// are copied, into a buffer reused for the life of the connection. Reader thread only.
final class L2CAPReassembler: @unchecked Sendable {
    private let buffer = ScratchBuffer(capacity: 4 + 1024)
    private var filled = 0
    private var active = false

    /// Pushes one ACL payload; calls `deliver(channel, payload)` for each completed frame. Returns false
    /// when something was dropped (a continuation without a start, an unfinished frame replaced by a
    /// new start, or octets past a frame's end).
    func push(
        _ data: UnsafeRawBufferPointer,
        first: Bool,
        deliver: (UInt16, UnsafeRawBufferPointer) -> Void
    ) -> Bool {
        var clean = true
        if first {
            if active { clean = false }
            active = false
            filled = 0
            if data.count >= 4 {
                let total = 4 + (Int(data[0]) | Int(data[1]) << 8)
                if data.count >= total {
                    deliver(UInt16(data[2]) | UInt16(data[3]) << 8, UnsafeRawBufferPointer(rebasing: data[4..<total]))
                    return clean && data.count == total
                }
            }
            active = true
        } else if !active {
            return false
        }
        append(data)
        guard filled >= 4 else { return clean }
        let base = buffer.bytes
        let total = 4 + (Int(base[0]) | Int(base[1]) << 8)
        guard filled >= total else { return clean }
        let exact = filled == total
        active = false
        filled = 0
        deliver(UInt16(base[2]) | UInt16(base[3]) << 8, UnsafeRawBufferPointer(rebasing: base[4..<total]))
        return clean && exact
    }

    private func append(_ data: UnsafeRawBufferPointer) {
        guard !data.isEmpty else { return }
        buffer.reserve(filled + data.count, keeping: filled)
        UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[filled..<filled + data.count]).copyMemory(from: data)
        filled += data.count
    }
}
