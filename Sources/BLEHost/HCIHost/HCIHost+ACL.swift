import BLEWire

extension HCIHost {
    /// Sends one L2CAP frame (basic header added here) on `handle`, fragmented to the controller's ACL
    /// buffer size. Packets go out while credits last; the rest waits in order for Number Of Completed
    /// Packets. Never blocks: safe on the reader thread.
    ///
    /// `signalingAnswer`: an answer owed to a peer's signaling request; when
    /// `HCIACLFlow.signalingAnswerLimit` answers already wait for credits it is dropped and counted
    /// (`HCIHostStatistics.unansweredSignaling`) instead of queued.
    func sendL2CAP(
        handle: UInt16,
        channel: UInt16,
        _ payload: UnsafeRawBufferPointer,
        signalingAnswer: Bool = false
    ) throws(TransportError) {
        guard payload.count <= Int(UInt16.max) - 4 else {
            throw .pduTooLarge(length: payload.count, limit: Int(UInt16.max) - 4)
        }
        try state.withLock { (state) throws(TransportError) in
            if let closed = state.closed { throw closed }
            guard state.connections[handle] != nil else { throw .disconnected(reason: nil) }
            let total = 4 + payload.count
            var offset = 0
            if !state.flow.hasQueued {
                while offset < total, state.flow.take(handle) {
                    let count = min(state.flow.length, total - offset)
                    let packet = buildPacket(handle: handle, first: offset == 0, count: count) { destination in
                        copyFrame(channel: channel, payload, from: offset, into: destination)
                    }
                    state.statistics.aclSent += 1
                    try transport.send(.acl, packet)
                    offset += count
                }
                if offset == total { return }
            }
            if signalingAnswer && offset == 0 && !state.flow.acceptsSignalingAnswer {
                state.statistics.unansweredSignaling += 1
                return
            }
            var frame = [UInt8](repeating: 0, count: total)
            frame.withUnsafeMutableBytes { copyFrame(channel: channel, payload, from: 0, into: $0) }
            state.flow.enqueue(
                HCIACLFlow.Frame(handle: handle, bytes: frame, offset: offset, isSignalingAnswer: signalingAnswer)
            )
        }
    }

    /// Sends waiting fragments while credits last (called under the lock after credits come back).
    func drainACL(_ state: inout State) {
        while let head = state.flow.head, state.flow.take(head.handle) {
            let count = min(state.flow.length, head.bytes.count - head.offset)
            let packet = head.bytes.withUnsafeBytes { source in
                buildPacket(handle: head.handle, first: head.offset == 0, count: count) { destination in
                    destination.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: source[head.offset..<head.offset + count])
                    )
                }
            }
            state.flow.advanceHead(by: count)
            state.statistics.aclSent += 1
            do throws(TransportError) {
                try transport.send(.acl, packet)
            } catch {
                diagnose("ACL send failed: \(error)")
                return
            }
        }
    }

    /// Builds one ACL packet in the scratch buffer: header, then `count` octets written by `fill`.
    private func buildPacket(
        handle: UInt16,
        first: Bool,
        count: Int,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) -> UnsafeRawBufferPointer {
        scratch.reserve(4 + count)
        let buffer = scratch.bytes
        let boundary: UInt16 = first ? 0b00 : 0b01
        let word = handle & 0x0FFF | boundary << 12
        buffer[0] = UInt8(truncatingIfNeeded: word)
        buffer[1] = UInt8(truncatingIfNeeded: word >> 8)
        buffer[2] = UInt8(truncatingIfNeeded: count)
        buffer[3] = UInt8(truncatingIfNeeded: count >> 8)
        fill(UnsafeMutableRawBufferPointer(rebasing: buffer[4..<4 + count]))
        return UnsafeRawBufferPointer(rebasing: buffer[0..<4 + count])
    }

    /// Number Of Completed Packets: credits back per handle, then whatever was waiting goes out.
    func completedPackets(_ event: UnsafeRawBufferPointer) {
        do throws(DecodeError) {
            let view = try HCINumberOfCompletedPacketsEvent.View(event: event)
            state.withLock { state in
                for index in 0..<view.count {
                    let entry = view[index]
                    state.flow.complete(entry.connectionHandle, count: Int(entry.completedPackets))
                }
                drainACL(&state)
            }
        } catch {
            state.withLock { $0.statistics.ignoredEvents += 1 }
        }
    }

    /// One controller → host ACL packet: to its connection's reassembler (reader thread only).
    func receiveACL(_ packet: UnsafeRawBufferPointer) {
        guard packet.count >= 4 else { return dropACL() }
        let word = UInt16(packet[0]) | UInt16(packet[1]) << 8
        let length = Int(UInt16(packet[2]) | UInt16(packet[3]) << 8)
        guard packet.count >= 4 + length else { return dropACL() }
        let handle = word & 0x0FFF
        let first = (word >> 12) & 0b11 != 0b01
        let connection: HCIConnection? = state.withLock { state in
            state.statistics.aclReceived += 1
            return state.connections[handle]
        }
        guard let connection else { return dropACL() }
        let data = UnsafeRawBufferPointer(rebasing: packet[4..<4 + length])
        let clean = connection.reassembler.push(data, first: first) { channel, payload in
            connection.receiveL2CAP(channel, payload)
        }
        if !clean { dropACL() }
    }

    func dropACL() { state.withLock { $0.statistics.droppedACL += 1 } }
}

/// Writes octets `offset..<offset + destination.count` of the L2CAP frame `header(channel) + payload`.
private func copyFrame(
    channel: UInt16,
    _ payload: UnsafeRawBufferPointer,
    from offset: Int,
    into destination: UnsafeMutableRawBufferPointer
) {
    let header: (UInt8, UInt8, UInt8, UInt8) = (
        UInt8(truncatingIfNeeded: payload.count), UInt8(truncatingIfNeeded: payload.count >> 8),
        UInt8(truncatingIfNeeded: channel), UInt8(truncatingIfNeeded: channel >> 8)
    )
    var written = 0
    var position = offset
    while position < 4, written < destination.count {
        destination[written] =
            switch position {
            case 0: header.0
            case 1: header.1
            case 2: header.2
            default: header.3
            }
        written += 1
        position += 1
    }
    let remaining = destination.count - written
    if remaining > 0 {
        let start = position - 4
        destination.baseAddress!.advanced(by: written).copyMemory(
            from: payload.baseAddress!.advanced(by: start),
            byteCount: remaining
        )
    }
}
