import BLEWire

extension GATTClient {
    /// Writes a value and waits for the server's acknowledgement: a Write Request when it fits in
    /// ATT_MTU − 3, otherwise a long write (Core 5.4 Vol 3 Part G §4.9.3 and §4.9.4).
    public func write(_ value: [UInt8], to handle: UInt16) async throws(GATTError) {
        if value.count > mtu - 3 { return try await writeLong(value, to: handle) }
        _ = try await exchange(ATTWriteRequest(handle: handle, value: value), as: ATTWriteResponse.self)
    }

    /// Writes a characteristic's value with acknowledgement.
    public func write(_ value: [UInt8], to characteristic: GATTCharacteristic) async throws(GATTError) {
        try await write(value, to: characteristic.valueHandle)
    }

    /// Long write: Prepare Write in parts of ATT_MTU − 5 from `offset`, then Execute Write
    /// (Core 5.4 Vol 3 Part G §4.9.4). Each echoed part is checked; a mismatch cancels the queue.
    public func writeLong(_ value: [UInt8], to handle: UInt16, offset: Int = 0) async throws(GATTError) {
        try await reliableWrite([(handle, value)], startingAt: offset)
    }

    /// Reliable write of one or more values (Core 5.4 Vol 3 Part G §4.9.5): every part is prepared and
    /// its echo compared before anything is executed, so either all of it is written or none.
    public func reliableWrite(_ writes: [(handle: UInt16, value: [UInt8])]) async throws(GATTError) {
        try await reliableWrite(writes, startingAt: 0)
    }

    private func reliableWrite(
        _ writes: [(handle: UInt16, value: [UInt8])],
        startingAt offset: Int
    ) async throws(GATTError) {
        guard offset >= 0, writes.allSatisfy({ offset + $0.value.count <= 512 }) else {
            throw .invalidArgument("an attribute value is at most 512 bytes")
        }
        let partLength = mtu - 5
        do throws(GATTError) {
            for write in writes {
                var start = 0
                repeat {
                    let part = Array(write.value[start..<min(start + partLength, write.value.count)])
                    let request = ATTPrepareWriteRequest(
                        handle: write.handle,
                        valueOffset: UInt16(offset + start),
                        partValue: part
                    )
                    let echo = try await exchange(request, as: ATTPrepareWriteResponse.self)
                    guard echo.handle == request.handle, echo.valueOffset == request.valueOffset,
                        echo.partValue == request.partValue
                    else {
                        throw .unexpectedResponse(
                            request: ATTPrepareWriteRequest.opcode,
                            "prepared part echoed differently"
                        )
                    }
                    start += part.count
                } while start < write.value.count
            }
        } catch {
            switch error {
            case .att, .unexpectedResponse, .invalidResponse:
                // Drop whatever was prepared, so that a failed reliable write leaves nothing behind.
                _ = try? await exchange(ATTExecuteWriteRequest(flags: 0x00), as: ATTExecuteWriteResponse.self)
            default:
                break
            }
            throw error
        }
        _ = try await exchange(ATTExecuteWriteRequest(flags: 0x01), as: ATTExecuteWriteResponse.self)
    }

    /// Write without response (Write Command, Core 5.4 Vol 3 Part G §4.9.1), after `pacing` allows it.
    /// The value must fit in ATT_MTU − 3; nothing confirms that the peer received it.
    public func writeWithoutResponse(
        _ value: UnsafeRawBufferPointer,
        to handle: UInt16,
        pacing: (any GATTWritePacing)? = nil
    ) async throws(GATTError) {
        try await admitWriteCommand(of: value.count, pacing: pacing)
        try sendWriteCommand(value, to: handle)
    }

    /// Write without response of a value held in an array.
    public func writeWithoutResponse(
        _ value: [UInt8],
        to handle: UInt16,
        pacing: (any GATTWritePacing)? = nil
    ) async throws(GATTError) {
        try await admitWriteCommand(of: value.count, pacing: pacing)
        let result: Result<Void, GATTError> = value.withUnsafeBytes { bytes in
            do throws(GATTError) {
                try sendWriteCommand(bytes, to: handle)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Checks that a Write Command of `count` value bytes fits ATT_MTU − 3, then waits for `pacing`.
    private func admitWriteCommand(of count: Int, pacing: (any GATTWritePacing)?) async throws(GATTError) {
        let mtu = self.mtu
        guard count <= mtu - 3 else {
            throw .invalidArgument("write without response of \(count) bytes exceeds ATT_MTU − 3 = \(mtu - 3)")
        }
        if let pacing {
            try track(pacing)
            try await pacing.reserve(count)
        }
    }

    /// Sends one Write Command built on the stack (no allocation), without pacing.
    public func sendWriteCommand(_ value: UnsafeRawBufferPointer, to handle: UInt16) throws(GATTError) {
        let result: Result<Void, GATTError> = withUnsafeTemporaryAllocation(
            byteCount: 3 + value.count,
            alignment: 1
        ) { pdu in
            pdu[0] = ATTWriteCommand.opcode
            pdu[1] = UInt8(truncatingIfNeeded: handle)
            pdu[2] = UInt8(truncatingIfNeeded: handle >> 8)
            if !value.isEmpty { UnsafeMutableRawBufferPointer(rebasing: pdu[3...]).copyMemory(from: value) }
            do throws(GATTError) {
                try bearer.sendCommand(UnsafeRawBufferPointer(pdu))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Remembers a pacer so that it is closed with the bearer (a waiting write then fails, not hangs).
    private func track(_ pacing: any GATTWritePacing) throws(GATTError) {
        let closed: GATTError? = state.withLock { state in
            if let closed = state.closed { return closed }
            state.pacers[ObjectIdentifier(pacing)] = pacing
            return nil
        }
        if let closed {
            pacing.close(closed)
            throw closed
        }
    }
}
