/// Parses the lines of a MethodSCRIPT (those after `e`, up to the empty line) into a `ScriptProgram`,
/// reporting the first problem as the device would: code, line, column.
struct ScriptParser {
    /// Deepest nesting of loops the parser accepts (error 400D beyond it).
    static let maximumScopeDepth = 8
    /// Most variables in one package (error 401C beyond it).
    static let maximumPackageVariables = 16
    /// Longest variable name (error 402C beyond it).
    static let maximumNameLength = 32

    private var program = ScriptProgram()
    private var slots: [String: Int] = [:]
    /// Open loops: statement index and whether it is a measurement loop.
    private var scopes: [(index: Int, measurement: Bool)] = []
    private var packageOpen = false
    private var packageCount = 0
    var lineNumber = 0

    /// Parses a whole script given as lines without newlines.
    static func parse(lines: [ArraySlice<UInt8>]) throws(ScriptError) -> ScriptProgram {
        var parser = ScriptParser()
        for line in lines { try parser.parseLine(line) }
        return try parser.finish()
    }

    mutating func parseLine(_ line: ArraySlice<UInt8>) throws(ScriptError) {
        lineNumber += 1
        let tokens = try ScriptToken.split(line, lineNumber: lineNumber)
        guard let command = tokens.first else { return }
        var arguments = ArgumentReader(tokens: tokens, line: lineNumber, lineLength: line.count)
        let instruction = try parseCommand(command, &arguments)
        try arguments.expectEnd()
        program.statements.append(ScriptStatement(instruction: instruction, line: lineNumber, column: command.column))
    }

    mutating func finish() throws(ScriptError) -> ScriptProgram {
        if !scopes.isEmpty || packageOpen {
            throw ScriptError(ScriptErrorCode.scriptEndedUnexpectedly, line: lineNumber + 1, column: 1)
        }
        return program
    }

    private var insideMeasurementLoop: Bool { scopes.contains { $0.measurement } }

    private mutating func parseCommand(
        _ command: ScriptToken,
        _ arguments: inout ArgumentReader
    ) throws(ScriptError) -> ScriptInstruction {
        let currentLine = lineNumber
        let here = { (code: UInt16) in ScriptError(code, line: currentLine, column: command.column) }
        switch command.string {
        case "var":
            let name = try arguments.name()
            return .declare(try declare(name))
        case "store_var":
            let name = try arguments.name()
            let slot = try slotOrDeclare(name)
            return .store(slot, try argument(&arguments), try arguments.variableType())
        case "add_var": return .add(try variable(try arguments.name()), try argument(&arguments))
        case "sub_var": return .subtract(try variable(try arguments.name()), try argument(&arguments))
        case "set_pgstat_chan": return .setPgstatChannel(try argument(&arguments))
        case "set_pgstat_mode": return .setPgstatMode(try argument(&arguments))
        case "set_max_bandwidth": return .setMaxBandwidth(try argument(&arguments))
        case "set_range":
            return .setRange(try arguments.variableType(), try argument(&arguments))
        case "set_cr":
            return .setRange(.current, try argument(&arguments))
        case "set_range_minmax":
            return .setRangeMinMax(try arguments.variableType(), try argument(&arguments), try argument(&arguments))
        case "set_autoranging":
            // Old form `set_autoranging min max` (current) or new form `set_autoranging ba min max`.
            let type = arguments.peekIsVariableType ? try arguments.variableType() : .current
            return .setAutoranging(type, try argument(&arguments), try argument(&arguments))
        case "set_pot_range": return .setPotentialRange(try argument(&arguments), try argument(&arguments))
        case "set_e":
            if insideMeasurementLoop { throw here(ScriptErrorCode.potentialInMeasurementLoop) }
            return .setPotential(try argument(&arguments))
        case "cell_on": return .cellOn
        case "cell_off": return .cellOff
        case "wait": return .wait(try argument(&arguments))
        case "timer_start": return .timerStart
        case "timer_get": return .timerGet(try variable(try arguments.name()))
        case "pck_start":
            if packageOpen { throw here(ScriptErrorCode.packetSequence) }
            packageOpen = true
            packageCount = 0
            return .packageStart
        case "pck_add":
            if !packageOpen { throw here(ScriptErrorCode.packetSequence) }
            packageCount += 1
            if packageCount > Self.maximumPackageVariables { throw here(ScriptErrorCode.tooManyPacketVariables) }
            return .packageAdd(try variable(try arguments.name()))
        case "pck_end":
            if !packageOpen { throw here(ScriptErrorCode.packetSequence) }
            packageOpen = false
            return .packageEnd
        case "loop":
            let lhs = try argument(&arguments)
            let comparison = try arguments.comparison()
            let rhs = try argument(&arguments)
            try openScope(measurement: false, at: command)
            return .loop(lhs, comparison, rhs, end: -1)
        case "endloop":
            try closeScope(at: command)
            return .endLoop
        case "send_string": return .sendString(try arguments.quotedString())
        case "on_finished:":
            if !scopes.isEmpty || program.onFinished != nil { throw here(ScriptErrorCode.invalidScope) }
            program.onFinished = program.statements.count
            return .onFinished
        default:
            if command.string.hasPrefix("meas_loop_") {
                return try parseMeasurementLoop(command, &arguments)
            }
            throw here(ScriptErrorCode.scriptCommandUnknown)
        }
    }

    private mutating func parseMeasurementLoop(
        _ command: ScriptToken,
        _ arguments: inout ArgumentReader
    ) throws(ScriptError) -> ScriptInstruction {
        let name = command.string.dropFirst("meas_loop_".count)
        guard let technique = Technique(rawValue: String(name)) else {
            throw ScriptError(ScriptErrorCode.scriptCommandUnknown, line: lineNumber, column: command.column)
        }
        let (outputCount, parameterCount): (Int, Int) =
            switch technique {
            case .ca: (2, 3)
            case .lsv: (2, 4)
            case .cv: (2, 5)
            case .swv: (4, 5)
            case .dpv: (2, 6)
            case .eis: (3, 5)
            }
        var outputs: [Int] = []
        for _ in 0..<outputCount { outputs.append(try variable(try arguments.name())) }
        var parameters: [ScriptArgument] = []
        for _ in 0..<parameterCount { parameters.append(try argument(&arguments)) }
        var scans = 1
        if technique == .cv, let count = try arguments.optionalScans() { scans = count }
        if insideMeasurementLoop {
            throw ScriptError(ScriptErrorCode.nestedMeasurementLoops, line: lineNumber, column: command.column)
        }
        try openScope(measurement: true, at: command)
        program.techniques.append(technique)
        return .measure(
            MeasurementLoop(technique: technique, outputs: outputs, parameters: parameters, scans: scans, end: -1)
        )
    }

    private mutating func openScope(measurement: Bool, at command: ScriptToken) throws(ScriptError) {
        if scopes.count >= Self.maximumScopeDepth {
            throw ScriptError(ScriptErrorCode.scopeTooDeep, line: lineNumber, column: command.column)
        }
        scopes.append((program.statements.count, measurement))
    }

    private mutating func closeScope(at command: ScriptToken) throws(ScriptError) {
        guard let scope = scopes.popLast() else {
            throw ScriptError(ScriptErrorCode.invalidScope, line: lineNumber, column: command.column)
        }
        let end = program.statements.count
        switch program.statements[scope.index].instruction {
        case .measure(var loop):
            loop.end = end
            program.statements[scope.index].instruction = .measure(loop)
        case .loop(let lhs, let comparison, let rhs, _):
            program.statements[scope.index].instruction = .loop(lhs, comparison, rhs, end: end)
        default: break
        }
    }

    private mutating func declare(_ name: ScriptToken) throws(ScriptError) -> Int {
        try validate(name)
        if slots[name.string] != nil {
            throw ScriptError(ScriptErrorCode.variableExists, line: lineNumber, column: name.column)
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
                throw ScriptError(ScriptErrorCode.badVariableName, line: lineNumber, column: name.column + offset)
            }
        }
        if name.text.count > Self.maximumNameLength {
            throw ScriptError(ScriptErrorCode.variableNameTooLong, line: lineNumber, column: name.column)
        }
    }

    private func variable(_ name: ScriptToken) throws(ScriptError) -> Int {
        if ScriptLiteral.looksNumeric(name.text) {
            throw ScriptError(ScriptErrorCode.literalNotSupported, line: lineNumber, column: name.column)
        }
        try validate(name)
        guard let slot = slots[name.string] else {
            throw ScriptError(ScriptErrorCode.undeclaredVariable, line: lineNumber, column: name.column)
        }
        return slot
    }

    private func argument(_ arguments: inout ArgumentReader) throws(ScriptError) -> ScriptArgument {
        let token = try arguments.next()
        if ScriptLiteral.looksNumeric(token.text) {
            let (value, isInteger) = try ScriptLiteral.parse(token, line: lineNumber)
            return .literal(value, isInteger: isInteger)
        }
        return .variable(try variable(token))
    }
}
