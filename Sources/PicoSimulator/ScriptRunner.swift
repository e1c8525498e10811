import Coordination
import MethodSCRIPT

/// Where a running script's reply lines go. `write` receives one whole line including its `\n`, valid only
/// during the call; `flush` is called before the script sleeps, so that paced output leaves promptly.
protocol ScriptOutputSink: AnyObject {
    func write(_ line: UnsafeRawBufferPointer)
    func flush()
}

/// How a script run ended.
enum ScriptOutcome: Equatable {
    case completed
    case aborted
    case failed(ScriptError)
}

/// A variable's current value and what a package says about it.
struct VariableValue {
    var value = Double.nan
    var type = VariableType.unknown
    var isInteger = false
    var hasMetadata = false
    var status: UInt8 = 0
    var range: UInt8 = 0
}

/// Why execution stopped early.
enum RunStop: Error {
    case aborted
    case failed(ScriptError)
}

/// Executes a parsed `ScriptProgram`: writes `M…`/`C…`/`L`/`P…`/`T…`/`*`/`-`/`+` lines, runs `on_finished:`
/// (not after an error) and ends with the empty line. Device time follows the script's schedule; the clock only
/// decides how long that takes in reality.
struct ScriptRunner {
    let program: ScriptProgram
    let sink: any ScriptOutputSink
    let clock: any TimeSource
    let isAborted: () -> Bool
    /// Told of every `cell_on` and `cell_off` (the device keeps the cell between scripts).
    let cellChanged: (SimulatedCell) -> Void

    var variables: [VariableValue]
    var cell: CellState
    var noise: SimulatorNoise
    var ranges = CurrentRangeSelector()
    /// The potentials the instrument can apply (V); `set_e` and the loops' potentials outside it fail.
    var potentialRange = SimulatedPicoConfiguration.picoPotentialRange
    var cellIsOn = false
    var setPotential = 0.0
    /// Device time since the script started, as scheduled (s).
    var time = 0.0
    var startInstant = 0.0
    var timerOrigin = 0.0
    var measurementLoopCount = 0
    var ignoreAbort = false
    /// The current point was reached too late (real time only).
    var late = false
    /// The line being built; reused, so a package costs no allocation once it has grown.
    var line: [UInt8] = []

    init(
        program: ScriptProgram,
        cell: CellModel?,
        noiseSeed: UInt64,
        noiseScale: Double,
        potentialRange: ClosedRange<Double> = SimulatedPicoConfiguration.picoPotentialRange,
        sink: any ScriptOutputSink,
        clock: any TimeSource,
        cellAtStart: SimulatedCell = SimulatedCell(),
        cellChanged: @escaping (SimulatedCell) -> Void = { _ in },
        isAborted: @escaping () -> Bool
    ) {
        self.program = program
        self.sink = sink
        self.clock = clock
        self.isAborted = isAborted
        self.cellChanged = cellChanged
        variables = Array(repeating: VariableValue(), count: program.variableNames.count)
        self.cell = CellState(model: cell ?? CellModel.automatic(for: program.techniques))
        noise = SimulatorNoise(seed: noiseSeed, scale: noiseScale)
        self.potentialRange = potentialRange
        line.reserveCapacity(256)
        cellIsOn = cellAtStart.isOn
        setPotential = cellAtStart.potential
        if cellIsOn { self.cell.apply(setPotential, at: 0) }
    }

    /// Runs the script (and `on_finished:`); `finish()` then writes the closing empty line.
    mutating func run() -> ScriptOutcome {
        startInstant = clock.seconds
        timerOrigin = startInstant
        let mainEnd = program.onFinished ?? program.statements.count
        var outcome = ScriptOutcome.completed
        do throws(RunStop) {
            try execute(0..<mainEnd)
        } catch {
            switch error {
            case .aborted:
                outcome = .aborted
            case .failed(let scriptError):
                outcome = .failed(scriptError)
                emit(Array("\(scriptError)\n".utf8))
            }
        }
        if case .failed = outcome {
        } else if let start = program.onFinished {
            ignoreAbort = true
            try? execute((start + 1)..<program.statements.count)
        }
        return outcome
    }

    /// Writes the empty line that ends the script's output, and sends it.
    func finish() {
        emit([UInt8(ascii: "\n")])
        sink.flush()
    }

    func checkAbort() throws(RunStop) {
        if !ignoreAbort, isAborted() { throw .aborted }
    }

    /// How late a real-time point may be before its currents carry the TIMING_ERROR status bit.
    static let timingTolerance = 0.010

    /// Waits until the scheduled device time `time` has come. On a real-time clock, a point reached more than
    /// `timingTolerance` after its time sets `late` (the device's "loop timing not met").
    mutating func waitForSchedule() throws(RunStop) {
        let deadline = startInstant + time
        if clock.passesByItself {
            sink.flush()
            late = clock.seconds - deadline > Self.timingTolerance
        }
        let ignore = ignoreAbort
        let aborted = isAborted
        clock.block(untilSeconds: deadline) { !ignore && aborted() }
        try checkAbort()
    }

    mutating func execute(_ range: Range<Int>) throws(RunStop) {
        var pc = range.lowerBound
        while pc < range.upperBound {
            let statement = program.statements[pc]
            switch statement.instruction {
            case .measure(let loop):
                try measure(loop, at: pc)
                pc = loop.end + 1
            case .loop(let lhs, let comparison, let rhs, let end):
                emitMarker(UInt8(ascii: "L"))
                while comparison.holds(value(lhs), value(rhs)) {
                    try checkAbort()
                    try execute((pc + 1)..<end)
                }
                emitMarker(UInt8(ascii: "+"))
                pc = end + 1
            default:
                try perform(statement)
                pc += 1
            }
        }
    }

    static func isInteger(_ argument: ScriptArgument) -> Bool {
        if case .literal(_, true) = argument { return true }
        return false
    }

    func value(_ argument: ScriptArgument) -> Double {
        switch argument {
        case .literal(let value, _): value
        case .variable(let slot): variables[slot].value
        }
    }

    func fail(_ code: UInt16, _ statement: ScriptStatement) -> RunStop {
        .failed(ScriptError(code, line: statement.line, column: statement.column))
    }

    mutating func perform(_ statement: ScriptStatement) throws(RunStop) {
        switch statement.instruction {
        case .declare(let slot):
            variables[slot] = VariableValue()
        case .store(let slot, let argument, let type):
            var isInteger = false
            if case .literal(_, let integer) = argument { isInteger = integer }
            variables[slot] = VariableValue(value: value(argument), type: type, isInteger: isInteger)
        case .add(let slot, let argument):
            variables[slot].value += value(argument)
            variables[slot].isInteger = variables[slot].isInteger && Self.isInteger(argument)
        case .subtract(let slot, let argument):
            variables[slot].value -= value(argument)
            variables[slot].isInteger = variables[slot].isInteger && Self.isInteger(argument)
        case .setPgstatChannel(let argument):
            guard (0...1).contains(value(argument)) else { throw fail(ScriptErrorCode.outOfBounds, statement) }
        case .setPgstatMode(let argument):
            let mode = value(argument)
            guard (0...4).contains(mode), mode == mode.rounded() else {
                throw fail(ScriptErrorCode.outOfBounds, statement)
            }
            ranges.pgstatMode = Int(mode)
        case .setMaxBandwidth(let argument):
            guard value(argument) > 0 else { throw fail(ScriptErrorCode.mustBePositive, statement) }
        case .setRange(let type, let argument):
            try setRange(type, value(argument), statement)
        case .setRangeMinMax(let type, let low, let high):
            guard type == .current || type == .appliedPotential || type == .weVsRE else {
                throw fail(ScriptErrorCode.badVariableType, statement)
            }
            guard value(low) <= value(high) else { throw fail(ScriptErrorCode.outOfBounds, statement) }
        case .setAutoranging(let type, let low, let high):
            try setAutoranging(type, value(low), value(high), statement)
        case .setPotentialRange(let low, let high):
            guard value(low) <= value(high) else { throw fail(ScriptErrorCode.outOfBounds, statement) }
        case .setPotential(let argument):
            try requirePotential(value(argument), statement: statement)
            setPotential = value(argument)
            if cellIsOn {
                cell.apply(setPotential, at: time)
                cellChanged(SimulatedCell(isOn: true, potential: setPotential))
            }
        case .cellOn:
            cellIsOn = true
            cell.apply(setPotential, at: time)
            cellChanged(SimulatedCell(isOn: true, potential: setPotential))
        case .cellOff:
            cellIsOn = false
            cell.disconnect()
            cellChanged(SimulatedCell(isOn: false, potential: setPotential))
        case .wait(let argument):
            let seconds = value(argument)
            guard seconds >= 0 else { throw fail(0x4200, statement) }
            time += seconds
            try waitForSchedule()
        case .timerStart:
            timerOrigin = clock.seconds
        case .timerGet(let slot):
            variables[slot] = VariableValue(value: clock.seconds - timerOrigin, type: .time)
        case .packageStart:
            line.removeAll(keepingCapacity: true)
            line.append(UInt8(ascii: "P"))
        case .packageAdd(let slot):
            if line.count > 1 { line.append(UInt8(ascii: ";")) }
            appendVariable(variables[slot])
        case .packageEnd:
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { sink.write($0) }
        case .sendString(let text):
            emit([UInt8(ascii: "T")] + text + [UInt8(ascii: "\n")])
        case .onFinished, .endLoop, .measure, .loop, .other:
            break
        }
    }

    mutating func setRange(_ type: VariableType, _ value: Double, _ statement: ScriptStatement) throws(RunStop) {
        if type == .current {
            guard value > 0 else { throw fail(ScriptErrorCode.mustBePositive, statement) }
            ranges.fixedRange = value
        } else if type != .weVsRE && type != .appliedPotential {
            throw fail(ScriptErrorCode.badVariableType, statement)
        }
    }

    mutating func setAutoranging(
        _ type: VariableType,
        _ low: Double,
        _ high: Double,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        guard low > 0, high > 0 else { throw fail(ScriptErrorCode.mustBePositive, statement) }
        guard low <= high else { throw fail(ScriptErrorCode.outOfBounds, statement) }
        if type == .current {
            ranges.autorange = (low, high)
        } else if type != .weVsRE {
            throw fail(ScriptErrorCode.badVariableType, statement)
        }
    }
}
