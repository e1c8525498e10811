extension HCICommandCompleteEvent {
    /// True when this event completes `Command`.
    public func completes<Command: HCICommandPacket>(_: Command.Type) -> Bool { commandOpcode == Command.opcode }

    /// Decodes the return parameters as `Parameters` (e.g. `HCIReadBDADDR.ReturnParameters.self`).
    ///
    /// Octets past the known parameters are ignored (later spec versions may append fields); a short
    /// buffer is a truncation error located from the first return-parameter octet, which is octet 5
    /// of the event packet (event code, length, Num_HCI_Command_Packets, Command_Opcode come first).
    public func returnParameters<Parameters: WireCodable>(
        as _: Parameters.Type
    ) throws(DecodeError) -> Parameters {
        let result: Result<Parameters, DecodeError> = returnParameters.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            do throws(DecodeError) {
                return .success(try Parameters(parsing: &reader))
            } catch {
                return .failure(DecodeError(offset: error.offset + 5, reason: error.reason))
            }
        }
        return try result.get()
    }

    /// The status octet that starts most return parameters, or nil when there are none.
    public var status: HCIStatus? { returnParameters.first.map { HCIStatus(rawValue: $0) } }
}
