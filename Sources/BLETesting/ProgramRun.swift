// Shorthands for the tests that run a built program and read what it printed.

/// The `hcipico` built next to this test binary.
public func builtHCIPico() throws -> String { try TestProgram.hcipico() }

/// Runs `program` with `arguments` (`TestProgram`) and waits for it; nil when it could not start.
public func runProgram(_ program: String, _ arguments: [String]) -> (status: Int32, stdout: String, stderr: String)? {
    guard let outcome = try? TestProgram.run(program, arguments) else { return nil }
    return (outcome.status, outcome.outputText, outcome.errorText)
}

/// Runs `program` with `arguments` and `input` on standard input, and waits for it.
public func runProgram(
    _ program: String,
    _ arguments: [String],
    input: [UInt8]?
) -> (status: Int32, stdout: [UInt8], stderr: [UInt8])? {
    guard let outcome = try? TestProgram.run(program, arguments, input: input) else { return nil }
    return (outcome.status, outcome.output, outcome.error)
}
