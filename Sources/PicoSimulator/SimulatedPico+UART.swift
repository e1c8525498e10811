import Coordination
import Foundation
import MethodSCRIPT

/// Sends a running script's lines through the device's notification chunker.
final class TransmitSink: ScriptOutputSink, Sendable {
    let pico: SimulatedPico

    init(pico: SimulatedPico) { self.pico = pico }

    func write(_ line: UnsafeRawBufferPointer) {
        pico.transmitter.withLock { $0.append(line, emit: pico.outputHandler) }
    }

    func flush() {
        pico.transmitter.withLock { $0.flush(emit: pico.outputHandler) }
    }
}

/// The firmware's command state, owned by the UART thread.
struct CommandState {
    var assembler: CommandLineAssembler
    /// Non-nil while collecting a script after `e`.
    var script: [[UInt8]]?
    var scriptBytes = 0
    /// The first problem met while collecting (reported when the script ends).
    var scriptProblem: ScriptError?
}

extension SimulatedPico {
    /// Most bytes the UART thread takes from the FIFO at once.
    static let uartChunk = 64

    func uartLoop() {
        var state = CommandState(assembler: CommandLineAssembler(maximumLength: configuration.maximumLineLength))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.uartChunk)
        let clock = configuration.clock
        while true {
            receiveLock.lock()
            while receiveBuffer.isEmpty && !stopping { receiveLock.wait() }
            if stopping {
                receiveLock.unlock()
                return
            }
            bytes.removeAll(keepingCapacity: true)
            receiveBuffer.read(into: &bytes, maximum: Self.uartChunk)
            receiveLock.unlock()
            // Only a real-time device is slowed by its UART; a virtual clock must not be moved by it (that
            // would shift a running script's timestamps).
            if clock.passesByItself, let rate = configuration.uartBytesPerSecond, rate > 0 {
                clock.block(untilSeconds: clock.seconds + Double(bytes.count) / rate) { false }
            }
            reportModemOut()
            for byte in bytes where state.assembler.add(byte) {
                handleLine(&state)
                state.assembler.reset()
            }
        }
    }

    /// Writes a reply (whole lines) and sends it at once.
    func reply(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            transmitter.withLock { chunker in
                chunker.append(UnsafeRawBufferPointer(buffer), emit: outputHandler)
                chunker.flush(emit: outputHandler)
            }
        }
    }

    func handleLine(_ state: inout CommandState) {
        let line = state.assembler.line
        if isRunningScript {
            if line == [UInt8(ascii: "Z")] {
                if configuration.abortStopsScript { abortRequested.store(true, ordering: .sequentiallyConsistent) }
                reply("Z\n")
            }
            return
        }
        if state.script != nil {
            collectScriptLine(&state)
            return
        }
        guard let first = line.first else { return }
        let echo = String(decoding: [first], as: UTF8.self)
        if state.assembler.overlong {
            reply(echo + "!" + ScriptError.hex4(ScriptErrorCode.commandTooLong) + "\n")
            return
        }
        switch String(decoding: line, as: UTF8.self) {
        case "t": reply("t\(configuration.firmwareVersion)\n\(configuration.firmwareSuffix)*\n")
        case "v": reply("v\(configuration.methodScriptVersion)\n")
        case "i": reply("i\(configuration.serialNumber)\n")
        case "Z": reply("Z!" + ScriptError.hex4(ScriptErrorCode.communicationModeInvalid) + "\n")
        case "e":
            state.script = []
            state.scriptBytes = 0
            state.scriptProblem = nil
            reply("e\n")
        default:
            let printable = first >= 0x20 && first < 0x7F
            reply((printable ? echo : "") + "!" + ScriptError.hex4(ScriptErrorCode.commandUnknown) + "\n")
        }
    }

    func collectScriptLine(_ state: inout CommandState) {
        let line = state.assembler.line
        guard !line.isEmpty || state.assembler.overlong else {
            let lines = state.script ?? []
            let problem = state.scriptProblem
            state.script = nil
            startScript(lines: lines, problem: problem)
            return
        }
        state.script?.append(line)
        state.scriptBytes += line.count + 1
        let number = state.script?.count ?? 0
        guard state.scriptProblem == nil else { return }
        if state.assembler.overlong {
            state.scriptProblem = ScriptError(
                ScriptErrorCode.commandTooLong,
                line: number,
                column: configuration.maximumLineLength + 1
            )
        } else if state.scriptBytes > configuration.maximumScriptBytes {
            state.scriptProblem = ScriptError(ScriptErrorCode.scriptTooLarge, line: number, column: 1)
        }
    }

    func startScript(lines: [[UInt8]], problem: ScriptError?) {
        let program: ScriptProgram
        do throws(ScriptError) {
            if let problem { throw problem }
            program = try ScriptParser.parse(lines: lines.map { $0[...] })
            // A command the checker knows and the simulator does not run is refused by name, not skipped.
            for statement in program.statements {
                guard case .other(let name) = statement.instruction else { continue }
                throw ScriptError(
                    ScriptErrorCode.scriptCommandUnknown,
                    line: statement.line,
                    column: statement.column,
                    detail: "\(name) is not simulated"
                )
            }
        } catch {
            reply("\(error)\n\n")
            return
        }
        abortRequested.store(false, ordering: .sequentiallyConsistent)
        running.store(true, ordering: .sequentiallyConsistent)
        threads.enter()
        Threads.start(name: "sim-pico-script") { [self] in
            var runner = ScriptRunner(
                program: program,
                cell: configuration.cell,
                noiseSeed: configuration.noiseSeed ?? UInt64.random(in: .min ... .max),
                noiseScale: configuration.noiseScale,
                potentialRange: configuration.potentialRange,
                sink: TransmitSink(pico: self),
                clock: configuration.clock,
                cellAtStart: cell,
                cellChanged: { [self] cell in cellChanged(cell) },
                isAborted: { [self] in abortRequested.load(ordering: .relaxed) }
            )
            _ = runner.run()
            // Idle before the empty line goes out, so a host may send its next command as soon as it sees it.
            running.store(false, ordering: .sequentiallyConsistent)
            runner.finish()
            threads.leave()
        }
    }
}
