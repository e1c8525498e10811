public import BLEWire

extension HCIHost {
    /// Sends `command` and waits for its Command Complete; returns the return parameters (status first).
    /// One command is outstanding at a time; the wait is bounded by `configuration.commandTimeout`.
    public func execute<Command: HCICommandPacket>(_ command: Command) async throws(HCIHostError) -> [UInt8] {
        let parameters = try await send(command)
        if let status = parameters.first, status != HCIStatus.success.rawValue {
            throw .commandFailed(opcode: Command.opcode, status: HCIStatus(rawValue: status))
        }
        return parameters
    }

    /// Sends `command` and decodes its return parameters as `Parameters`.
    public func execute<Command: HCICommandPacket, Parameters: WireCodable>(
        _ command: Command,
        returning _: Parameters.Type
    ) async throws(HCIHostError) -> Parameters {
        let bytes = try await execute(command)
        do throws(DecodeError) {
            return try bytes.withTypedBytes { (raw) throws(DecodeError) -> Parameters in
                var reader = ByteReader(raw)
                return try Parameters(parsing: &reader)
            }
        } catch {
            throw .invalidResponse(opcode: Command.opcode, error)
        }
    }

    /// Sends `command` and waits for Command Complete or Command Status. For Command Status the
    /// result is the single status octet. Failures of the wait are thrown; a status is returned.
    func send<Command: HCICommandPacket>(_ command: Command) async throws(HCIHostError) -> [UInt8] {
        switch try await self.command(command) {
        case .complete(let parameters): parameters
        case .status(let status): [status]
        }
    }

    /// Sends `command` and returns how the controller answered: Command Complete or Command Status.
    /// One command is outstanding at a time; the wait is bounded by `configuration.commandTimeout`.
    public func command<Command: HCICommandPacket>(_ command: Command) async throws(HCIHostError) -> HCICommandResult {
        let opcode = Command.opcode
        var writer = ByteWriter(capacity: 3 + Command.minimumLength + 8)
        command.encode(into: &writer)
        let packet = writer.bytes
        await commandGate.acquire()
        defer { commandGate.release() }
        if let closed = state.withLock({ $0.closed }) { throw .notRunning(closed) }
        let deadline = commandDeadline.arm(after: configuration.commandTimeout) { [weak self] in
            self?.finishCommand(opcode: opcode, .failure(.commandTimeout(opcode: opcode)))
        }
        defer { commandDeadline.disarm(deadline) }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<HCICommandResult, HCIHostError>, Never>) in
            state.withLock { $0.pendingCommand = PendingCommand(opcode: opcode, continuation: continuation) }
            do throws(TransportError) {
                try packet.withTypedBytes { (bytes) throws(TransportError) in
                    try transport.send(.command, bytes)
                }
            } catch {
                finishCommand(opcode: opcode, .failure(.transport(error)))
            }
        }
        return try result.get()
    }

    /// Sends `command` and throws unless its Command Status (or Complete) is success.
    func sendExpectingStatus<Command: HCICommandPacket>(_ command: Command) async throws(HCIHostError) {
        let answer = try await send(command)
        if let status = answer.first, status != HCIStatus.success.rawValue {
            throw .commandFailed(opcode: Command.opcode, status: HCIStatus(rawValue: status))
        }
    }

    /// Resumes the pending command if it is `opcode`.
    func finishCommand(opcode: UInt16, _ result: Result<HCICommandResult, HCIHostError>) {
        let pending: PendingCommand? = state.withLock { state in
            guard let pending = state.pendingCommand, pending.opcode == opcode else { return nil }
            state.pendingCommand = nil
            return pending
        }
        pending?.continuation.resume(returning: result)
    }
}
