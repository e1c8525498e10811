/// Parses the lines of a MethodSCRIPT (those after `e`, up to the empty line) into a `ScriptProgram`, with
/// the commands and arguments of `Specs/methodscript/commands.csv`, reporting the first problem as the
/// device would: code, line, column. `ScriptChecker` reports every line's problem; the simulator runs
/// what this parses.
public struct ScriptParser {
    /// Deepest nesting of loops the parser accepts (error 400D beyond it).
    static let maximumScopeDepth = 8
    /// Most variables in one package (error 401C beyond it).
    static let maximumPackageVariables = 16
    /// Longest variable name (error 402C beyond it).
    static let maximumNameLength = 32

    private enum Scope {
        case loop(index: Int)
        case measurement(index: Int)
        case conditional
    }

    private var program = ScriptProgram()
    private var slots: [String: Int] = [:]
    private var scopes: [Scope] = []
    private var packageOpen = false
    private var packageCount = 0
    private var lineNumber = 0

    /// An empty parser, before the first line.
    public init() {}

    /// Parses a whole script given as lines without newlines.
    public static func parse(lines: [ArraySlice<UInt8>]) throws(ScriptError) -> ScriptProgram {
        var parser = ScriptParser()
        for line in lines { try parser.parseLine(line) }
        return try parser.finish()
    }

    /// Parses the next line; after an error the parser may go on with the line after it.
    public mutating func parseLine(_ line: ArraySlice<UInt8>) throws(ScriptError) {
        lineNumber += 1
        if line.count > Int(InstrumentLimit.lineLength.maximum ?? 127) {
            throw ScriptError(
                ScriptErrorCode.commandTooLong,
                line: lineNumber,
                column: Int(InstrumentLimit.lineLength.maximum ?? 127) + 1,
                detail: "a line of \(line.count) characters; the device takes at most "
                    + "\(MethodNumber.plain(InstrumentLimit.lineLength.maximum ?? 127))"
            )
        }
        let tokens = try ScriptToken.split(line, lineNumber: lineNumber)
        guard let command = tokens.first else { return }
        var arguments = ScriptArgumentReader(tokens: tokens, line: lineNumber, lineLength: line.count)
        let instruction = try parseCommand(command, &arguments)
        try arguments.expectEnd()
        program.statements.append(ScriptStatement(instruction: instruction, line: lineNumber, column: command.column))
    }

    /// Ends the script: every loop and package must be closed.
    public mutating func finish() throws(ScriptError) -> ScriptProgram {
        if !scopes.isEmpty || packageOpen {
            throw ScriptError(
                ScriptErrorCode.scriptEndedUnexpectedly,
                line: lineNumber + 1,
                column: 1,
                detail: packageOpen ? "a package is not ended (pck_end)" : "a loop or if is not ended"
            )
        }
        return program
    }

    private var insideMeasurementLoop: Bool {
        scopes.contains { if case .measurement = $0 { true } else { false } }
    }

    private mutating func parseCommand(
        _ command: ScriptToken,
        _ arguments: inout ScriptArgumentReader
    ) throws(ScriptError) -> ScriptInstruction {
        let currentLine = lineNumber
        let here = { (code: UInt16, detail: String) in
            ScriptError(code, line: currentLine, column: command.column, detail: detail)
        }
        guard let signature = ScriptCommandSignature.table[command.string] else {
            throw here(ScriptErrorCode.scriptCommandUnknown, "\(command.string): no such command")
        }
        switch signature.kind {
        case .measurementLoop:
            return try parseMeasurementLoop(command, signature, &arguments)
        case .loop:
            let (lhs, comparison, rhs) = try condition(&arguments)
            try openScope(.loop(index: program.statements.count), at: command)
            return .loop(lhs, comparison, rhs, end: -1)
        case .endLoop:
            guard let scope = scopes.last, !isConditional(scope) else {
                throw here(ScriptErrorCode.invalidScope, "endloop without a loop")
            }
            closeScope()
            return .endLoop
        case .if:
            _ = try condition(&arguments)
            try openScope(.conditional, at: command)
            return .other(command.string)
        case .elseIf, .else:
            guard let scope = scopes.last, isConditional(scope) else {
                throw here(ScriptErrorCode.invalidScope, "\(command.string) without an if")
            }
            if signature.kind == .elseIf { _ = try condition(&arguments) }
            return .other(command.string)
        case .endIf:
            guard let scope = scopes.last, isConditional(scope) else {
                throw here(ScriptErrorCode.invalidScope, "endif without an if")
            }
            scopes.removeLast()
            return .other(command.string)
        case .onFinished:
            if !scopes.isEmpty || program.onFinished != nil {
                throw here(ScriptErrorCode.invalidScope, "on_finished: inside a loop or given twice")
            }
            program.onFinished = program.statements.count
            return .onFinished
        case .packageStart:
            if packageOpen { throw here(ScriptErrorCode.packetSequence, "pck_start inside a package") }
            packageOpen = true
            packageCount = 0
            return .packageStart
        case .packageAdd:
            if !packageOpen { throw here(ScriptErrorCode.packetSequence, "pck_add outside pck_start … pck_end") }
            packageCount += 1
            if packageCount > Self.maximumPackageVariables {
                throw here(
                    ScriptErrorCode.tooManyPacketVariables,
                    "more than \(Self.maximumPackageVariables) variables"
                )
            }
            return .packageAdd(try variable(try arguments.next()))
        case .packageEnd:
            if !packageOpen { throw here(ScriptErrorCode.packetSequence, "pck_end without pck_start") }
            packageOpen = false
            return .packageEnd
        case .statement:
            return try parseStatement(command, signature, &arguments)
        }
    }

    private func isConditional(_ scope: Scope) -> Bool {
        if case .conditional = scope { true } else { false }
    }

    private mutating func parseStatement(
        _ command: ScriptToken,
        _ signature: ScriptCommandSignature,
        _ arguments: inout ScriptArgumentReader
    ) throws(ScriptError) -> ScriptInstruction {
        // The old form `set_autoranging min max` (current) beside `set_autoranging ba min max`.
        if command.string == "set_autoranging", !arguments.peekIsVariableType {
            let low = try value(&arguments, signature.arguments[1], command)
            let high = try value(&arguments, signature.arguments[2], command)
            return .setAutoranging(.current, low, high)
        }
        var operands: [Operand] = []
        for spec in signature.arguments {
            operands.append(try operand(&arguments, spec, command))
        }
        if command.string == "set_e", insideMeasurementLoop {
            throw ScriptError(
                ScriptErrorCode.potentialInMeasurementLoop,
                line: lineNumber,
                column: command.column,
                detail: "set_e inside a measurement loop"
            )
        }
        func slotAt(_ index: Int) -> Int {
            if case .slot(let slot) = operands[index] { slot } else { 0 }
        }
        func valueAt(_ index: Int) -> ScriptArgument {
            if case .argument(let value) = operands[index] { value } else { .literal(0, isInteger: false) }
        }
        func typeAt(_ index: Int) -> VariableType {
            if case .type(let type) = operands[index] { type } else { .unknown }
        }
        switch command.string {
        case "var": return .declare(slotAt(0))
        case "store_var": return .store(slotAt(0), valueAt(1), typeAt(2))
        case "add_var": return .add(slotAt(0), valueAt(1))
        case "sub_var": return .subtract(slotAt(0), valueAt(1))
        case "set_pgstat_chan": return .setPgstatChannel(valueAt(0))
        case "set_pgstat_mode": return .setPgstatMode(valueAt(0))
        case "set_max_bandwidth": return .setMaxBandwidth(valueAt(0))
        case "set_range": return .setRange(typeAt(0), valueAt(1))
        case "set_cr": return .setRange(.current, valueAt(0))
        case "set_range_minmax": return .setRangeMinMax(typeAt(0), valueAt(1), valueAt(2))
        case "set_autoranging": return .setAutoranging(typeAt(0), valueAt(1), valueAt(2))
        case "set_pot_range": return .setPotentialRange(valueAt(0), valueAt(1))
        case "set_e": return .setPotential(valueAt(0))
        case "cell_on": return .cellOn
        case "cell_off": return .cellOff
        case "wait": return .wait(valueAt(0))
        case "timer_start": return .timerStart
        case "timer_get": return .timerGet(slotAt(0))
        case "send_string":
            if case .string(let text) = operands[0] { return .sendString(text) }
            return .other(command.string)
        default: return .other(command.string)
        }
    }

    private enum Operand {
        case slot(Int)
        case argument(ScriptArgument)
        case type(VariableType)
        case string([UInt8])
        case none
    }

    private mutating func operand(
        _ arguments: inout ScriptArgumentReader,
        _ spec: ScriptCommandSignature.Argument,
        _ command: ScriptToken
    ) throws(ScriptError) -> Operand {
        switch spec.kind {
        case .declare: return .slot(try declare(try arguments.next()))
        case .target: return .slot(try slotOrDeclare(try arguments.next()))
        case .variable: return .slot(try variable(try arguments.next()))
        case .value, .integer: return .argument(try value(&arguments, spec, command))
        case .type: return .type(try arguments.variableType())
        case .string: return .string(try arguments.quotedString())
        case .condition:
            _ = try condition(&arguments)
            return .none
        case .block: return .none
        }
    }

    /// A number or a variable; a number must keep the argument's bound, and an integer argument be whole.
    private func value(
        _ arguments: inout ScriptArgumentReader,
        _ spec: ScriptCommandSignature.Argument,
        _ command: ScriptToken
    ) throws(ScriptError) -> ScriptArgument {
        let token = try arguments.next()
        let argument = try self.argument(token)
        guard case .literal(let number, _) = argument else { return argument }
        // Made only for a message: the check itself runs for every number of every script.
        func shown() -> String {
            let unit = spec.unit.isEmpty ? "" : " \(spec.unit)"
            return "\(command.string) \(spec.name) = \(token.string) (\(MethodNumber.plain(number))\(unit))"
        }
        if spec.kind == .integer, number != number.rounded() {
            throw ScriptError(
                ScriptErrorCode.badDatatype,
                line: lineNumber,
                column: token.column,
                detail: "\(shown()): must be a whole number"
            )
        }
        if let bound = spec.bound, !bound.contains(number) {
            let code =
                bound.minimumExcluded && number <= (bound.minimum ?? 0)
                ? ScriptErrorCode.mustBePositive : ScriptErrorCode.outOfBounds
            throw ScriptError(
                code,
                line: lineNumber,
                column: token.column,
                detail: "\(shown()): must be \(bound.bounds)"
            )
        }
        return argument
    }

    private func condition(
        _ arguments: inout ScriptArgumentReader
    ) throws(ScriptError) -> (ScriptArgument, Comparison, ScriptArgument) {
        let lhs = try argument(try arguments.next())
        let comparison = try arguments.comparison()
        let rhs = try argument(try arguments.next())
        return (lhs, comparison, rhs)
    }

    private mutating func parseMeasurementLoop(
        _ command: ScriptToken,
        _ signature: ScriptCommandSignature,
        _ arguments: inout ScriptArgumentReader
    ) throws(ScriptError) -> ScriptInstruction {
        let name = command.string.dropFirst("meas_loop_".count)
        guard let kind = MeasurementLoopKind(rawValue: String(name)) else {
            throw ScriptError(ScriptErrorCode.scriptCommandUnknown, line: lineNumber, column: command.column)
        }
        var outputs: [Int] = []
        var parameters: [ScriptArgument] = []
        var scans = 1
        for spec in signature.arguments {
            switch spec.kind {
            case .variable: outputs.append(try variable(try arguments.next()))
            case .block:
                if let count = try arguments.optionalBlock(spec.name) { scans = count }
            default: parameters.append(try value(&arguments, spec, command))
            }
        }
        if insideMeasurementLoop {
            throw ScriptError(
                ScriptErrorCode.nestedMeasurementLoops,
                line: lineNumber,
                column: command.column,
                detail: "a measurement loop inside another"
            )
        }
        try openScope(.measurement(index: program.statements.count), at: command)
        program.techniques.append(kind)
        return .measure(MeasurementLoop(kind: kind, outputs: outputs, parameters: parameters, scans: scans, end: -1))
    }

    private mutating func openScope(_ scope: Scope, at command: ScriptToken) throws(ScriptError) {
        if scopes.count >= Self.maximumScopeDepth {
            throw ScriptError(
                ScriptErrorCode.scopeTooDeep,
                line: lineNumber,
                column: command.column,
                detail: "more than \(Self.maximumScopeDepth) nested loops"
            )
        }
        scopes.append(scope)
    }

    private mutating func closeScope() {
        let end = program.statements.count
        switch scopes.popLast() {
        case .measurement(let index):
            if case .measure(var loop) = program.statements[index].instruction {
                loop.end = end
                program.statements[index].instruction = .measure(loop)
            }
        case .loop(let index):
            if case .loop(let lhs, let comparison, let rhs, _) = program.statements[index].instruction {
                program.statements[index].instruction = .loop(lhs, comparison, rhs, end: end)
            }
        case .conditional, nil: break
        }
    }

    private mutating func declare(_ name: ScriptToken) throws(ScriptError) -> Int {
        try validate(name)
        if slots[name.string] != nil {
            throw ScriptError(
                ScriptErrorCode.variableExists,
                line: lineNumber,
                column: name.column,
                detail: "\(name.string) is already declared"
            )
        }
        let slot = program.variableNames.count
        program.variableNames.append(name.string)
        slots[name.string] = slot
        return slot
    }

    private mutating func slotOrDeclare(_ name: ScriptToken) throws(ScriptError) -> Int {
        if let slot = slots[name.string] { return slot }
        return try declare(name)
    }

    private func validate(_ name: ScriptToken) throws(ScriptError) {
        for (offset, byte) in name.text.enumerated() {
            let letter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            let digit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            if !(letter || (offset > 0 && (digit || byte == UInt8(ascii: "_")))) {
                throw ScriptError(
                    ScriptErrorCode.badVariableName,
                    line: lineNumber,
                    column: name.column + offset,
                    detail: "\(name.string): a name is a lowercase letter, then letters, digits or _"
                )
            }
        }
        if name.text.count > Self.maximumNameLength {
            throw ScriptError(
                ScriptErrorCode.variableNameTooLong,
                line: lineNumber,
                column: name.column,
                detail: "\(name.string): longer than \(Self.maximumNameLength) characters"
            )
        }
    }

    private func variable(_ name: ScriptToken) throws(ScriptError) -> Int {
        if ScriptLiteral.looksNumeric(name.text) {
            throw ScriptError(
                ScriptErrorCode.literalNotSupported,
                line: lineNumber,
                column: name.column,
                detail: "\(name.string): a variable is needed here, not a number"
            )
        }
        try validate(name)
        guard let slot = slots[name.string] else {
            throw ScriptError(
                ScriptErrorCode.undeclaredVariable,
                line: lineNumber,
                column: name.column,
                detail: "\(name.string) is not declared (var \(name.string))"
            )
        }
        return slot
    }

    private func argument(_ token: ScriptToken) throws(ScriptError) -> ScriptArgument {
        if ScriptLiteral.looksNumeric(token.text) {
            let (value, isInteger) = try ScriptLiteral.parse(token, line: lineNumber)
            return .literal(value, isInteger: isInteger)
        }
        return .variable(try variable(token))
    }
}
