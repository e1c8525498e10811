/// A reusable raw buffer owned by one thread at a time (the reader thread, or whoever holds the host's
/// lock): outgoing ACL packets are built here and fragmented L2CAP frames reassembled here, so the data
/// path allocates nothing per packet. It grows only when a larger frame than ever before appears.
final class ScratchBuffer: @unchecked Sendable {
    private(set) var bytes: UnsafeMutableRawBufferPointer

    init(capacity: Int) {
        bytes = .allocate(byteCount: capacity, alignment: 8)
    }

    /// Makes room for `count` octets, keeping the first `keeping`.
    func reserve(_ count: Int, keeping: Int = 0) {
        guard count > bytes.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, bytes.count * 2), alignment: 8)
        if keeping > 0 { grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<keeping])) }
        bytes.deallocate()
        bytes = grown
    }

    deinit { bytes.deallocate() }
}
