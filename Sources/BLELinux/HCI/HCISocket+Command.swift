public import BLEHost
public import BLEWire

extension HCISocket {
    /// Sends a generated command and waits for its Command Complete or Command Status.
    public func command<Command: HCICommandPacket>(
        _ command: Command,
        timeout: Duration = .seconds(2)
    ) async throws(HCICommandError) -> HCICommandResult {
        var writer = ByteWriter(capacity: 3 + Command.minimumLength + 8)
        command.encode(into: &writer)
        // The encoding starts with the opcode and the parameter length; the socket adds both itself.
        return try await self.command(
            opcode: Command.opcode,
            parameters: Array(writer.bytes.dropFirst(3)),
            timeout: timeout
        )
    }
}
