import Foundation
import MethodSCRIPT

/// The measurement loops. Each point waits for its scheduled time, sets the loop's variables and runs the
/// loop body (`pck_*`, `timer_get`, …). Sweeps are staircases of `E_step`; the current is sampled at the end of
/// each step (interval = E_step / scan rate).
extension ScriptRunner {
    /// Most points one measurement loop may have (error 4205 beyond it); also keeps every count an `Int`.
    static let maximumPoints = 100_000_000.0

    /// A point count from a computed `Double`, or error 4205 when it is not finite or too large.
    func pointCount(_ value: Double, _ statement: ScriptStatement) throws(RunStop) -> Int {
        guard value.isFinite, value >= 0, value <= Self.maximumPoints else {
            throw fail(ScriptErrorCode.outOfBounds, statement)
        }
        return Int(value)
    }

    /// The points of a loop that measures every `interval` for `duration` (CA, OCP, CP): error 4204 unless
    /// both are positive, 4029 unless there is at least one.
    func intervalPoints(_ interval: Double, _ duration: Double, _ statement: ScriptStatement) throws(RunStop) -> Int {
        try requirePositive(interval, duration, statement: statement)
        let count = try pointCount((duration / interval + 1e-9).rounded(.down), statement)
        guard count >= 1 else { throw fail(0x4029, statement) }
        return count
    }

    /// Number of whole staircase steps from `from` to `to` (a last part step is not taken, as the device
    /// does: −0.5 V to 0.5 V in 50 mV steps gives 21 points).
    func steps(from: Double, to: Double, step: Double, _ statement: ScriptStatement) throws(RunStop) -> Int {
        try pointCount((abs(to - from) / step + 1e-9).rounded(.down), statement)
    }

    /// Runs the `meas_loop_*` at statement index `index`.
    mutating func measure(_ loop: MeasurementLoop, at index: Int) throws(RunStop) {
        let statement = program.statements[index]
        // OCP measures with the cell off (error 0014 with it on); every other loop needs it on.
        if loop.kind == .ocp {
            guard !cellIsOn else { throw fail(0x0014, statement) }
        } else {
            guard cellIsOn else { throw fail(ScriptErrorCode.needsCellOn, statement) }
        }
        let p = loop.parameters.map { value($0) }
        let bodyRange = (index + 1)..<loop.end
        // The potentials the loop applies must be within the instrument's range, as the firmware checks.
        for position in loop.kind.potentialParameters where position < p.count {
            try requirePotential(p[position], statement: statement)
        }
        emitCounter(UInt8(ascii: "M"), measurementLoopCount)
        measurementLoopCount += 1
        switch loop.kind {
        case .ca: try chronoamperometry(loop, p, bodyRange, statement)
        case .lsv: try linearSweep(loop, p, bodyRange, statement)
        case .cv: try cyclicVoltammetry(loop, p, bodyRange, statement)
        case .swv: try squareWave(loop, p, bodyRange, statement)
        case .dpv: try differentialPulse(loop, p, bodyRange, statement)
        case .eis: try impedance(loop, p, bodyRange, statement)
        case .npv: try normalPulse(loop, p, bodyRange, statement)
        case .ocp: try openCircuit(loop, p, bodyRange, statement)
        case .cp: try chronopotentiometry(loop, p, bodyRange, statement)
        case .pad: throw fail(ScriptErrorCode.scriptCommandUnknown, statement)
        }
        emitMarker(UInt8(ascii: "*"))
    }

    /// A potential outside the instrument's range is refused as the firmware refuses it (`!4205`).
    func requirePotential(_ volts: Double, statement: ScriptStatement) throws(RunStop) {
        guard potentialRange.contains(volts) else { throw fail(ScriptErrorCode.outOfBounds, statement) }
    }

    func requirePositive(_ values: Double..., statement: ScriptStatement) throws(RunStop) {
        for value in values where !(value > 0) { throw fail(ScriptErrorCode.mustBePositive, statement) }
    }

    mutating func point(body: Range<Int>) throws(RunStop) {
        try checkAbort()
        try execute(body)
    }

    mutating func chronoamperometry(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (potential, interval, duration) = (p[0], p[1], p[2])
        let count = try intervalPoints(interval, duration, statement)
        cell.apply(potential, at: time)
        for _ in 0..<count {
            time += interval
            try waitForSchedule()
            store(potential, type: .appliedPotential, in: loop.outputs[0])
            storeCurrent(cell.current(at: time), in: loop.outputs[1])
            try point(body: body)
        }
    }

    mutating func linearSweep(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (begin, end, step, rate) = (p[0], p[1], p[2], p[3])
        try requirePositive(step, rate, statement: statement)
        let steps = try steps(from: begin, to: end, step: step, statement)
        guard steps >= 1 else { throw fail(0x4029, statement) }
        let direction = end >= begin ? 1.0 : -1.0
        try sweep(
            potentials: (0...steps).lazy.map { begin + direction * Double($0) * step },
            interval: step / rate,
            loop,
            body
        )
    }

    mutating func cyclicVoltammetry(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (begin, vertex1, vertex2, step, rate) = (p[0], p[1], p[2], p[3], p[4])
        try requirePositive(step, rate, statement: statement)
        // begin → vertex 1 → vertex 2 → begin; each scan starts and ends on E_begin.
        var segments: [(from: Double, direction: Double, count: Int)] = []
        for (from, to) in [(begin, vertex1), (vertex1, vertex2), (vertex2, begin)] {
            segments.append((from, to >= from ? 1.0 : -1.0, try steps(from: from, to: to, step: step, statement)))
        }
        let total = segments.reduce(0) { $0 + $1.count }
        guard total >= 1 else { throw fail(0x4029, statement) }
        let potentials = (0...total).lazy.map { index -> Double in
            var rest = index
            for segment in segments {
                if rest <= segment.count { return segment.from + segment.direction * Double(rest) * step }
                rest -= segment.count
            }
            return begin
        }
        for scan in 0..<loop.scans {
            if loop.scans > 1 { emitCounter(UInt8(ascii: "C"), scan) }
            try sweep(potentials: potentials, interval: step / rate, loop, body)
            if loop.scans > 1 { emitMarker(UInt8(ascii: "-")) }
        }
    }

    private mutating func sweep(
        potentials: some Sequence<Double>,
        interval: Double,
        _ loop: MeasurementLoop,
        _ body: Range<Int>
    ) throws(RunStop) {
        for potential in potentials {
            cell.apply(potential, at: time)
            time += interval
            try waitForSchedule()
            store(potential, type: .appliedPotential, in: loop.outputs[0])
            storeCurrent(cell.current(at: time), in: loop.outputs[1])
            try point(body: body)
        }
    }

    mutating func squareWave(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (begin, end, step, amplitude, frequency) = (p[0], p[1], p[2], p[3], p[4])
        try requirePositive(step, amplitude, frequency, statement: statement)
        let steps = try steps(from: begin, to: end, step: step, statement)
        guard steps >= 1 else { throw fail(0x4029, statement) }
        let direction = end >= begin ? 1.0 : -1.0
        let half = 0.5 / frequency
        for index in 0...steps {
            let base = begin + direction * Double(index) * step
            cell.apply(base + direction * amplitude, at: time)
            time += half
            let forward = cell.current(at: time)
            cell.apply(base - direction * amplitude, at: time)
            time += half
            let reverse = cell.current(at: time)
            try waitForSchedule()
            store(base, type: .appliedPotential, in: loop.outputs[0])
            storeCurrent(forward - reverse, in: loop.outputs[1])
            storeCurrent(forward, in: loop.outputs[2])
            storeCurrent(reverse, in: loop.outputs[3])
            try point(body: body)
        }
    }

    mutating func differentialPulse(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (begin, end, step, pulse, pulseTime, rate) = (p[0], p[1], p[2], p[3], p[4], p[5])
        try requirePositive(step, pulseTime, rate, statement: statement)
        let interval = step / rate
        guard pulseTime < interval else { throw fail(ScriptErrorCode.outOfBounds, statement) }
        let steps = try steps(from: begin, to: end, step: step, statement)
        guard steps >= 1 else { throw fail(0x4029, statement) }
        let direction = end >= begin ? 1.0 : -1.0
        for index in 0...steps {
            let base = begin + direction * Double(index) * step
            cell.apply(base, at: time)
            time += interval - pulseTime
            let before = cell.current(at: time)
            cell.apply(base + pulse, at: time)
            time += pulseTime
            let after = cell.current(at: time)
            try waitForSchedule()
            store(base, type: .appliedPotential, in: loop.outputs[0])
            storeCurrent(after - before, in: loop.outputs[1])
            try point(body: body)
        }
    }

    mutating func impedance(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (amplitude, start, end, count, dc) = (p[0], p[1], p[2], p[3], p[4])
        try requirePositive(amplitude, start, end, count, statement: statement)
        guard count == count.rounded() else { throw fail(ScriptErrorCode.badDatatype, statement) }
        let points = try pointCount(count, statement)
        cell.apply(dc, at: time)
        for index in 0..<points {
            let fraction = points == 1 ? 0 : Double(index) / Double(points - 1)
            let frequency = start * pow(end / start, fraction)
            // Each frequency takes what the device spends on it: settling (range and DC) and then a few
            // periods of the signal, at least a minimum integration time.
            time += Self.eisSettling + max(Self.eisPeriods / frequency, Self.eisMinimumIntegration)
            try waitForSchedule()
            let z = cell.model.impedance(frequency: frequency)
            let magnitude = (z.real * z.real + z.imaginary * z.imaginary).squareRoot()
            let chosen = ranges.select(for: amplitude * 2.0.squareRoot() / magnitude).range
            let real = noise.perturb(z.real, fullScale: 0)
            // The device reports −Z'' (positive for a capacitive cell), as in the published EIS output.
            let imaginary = noise.perturb(-z.imaginary, fullScale: 0)
            store(frequency, type: .appliedFrequency, in: loop.outputs[0])
            for (slot, value, type) in [
                (loop.outputs[1], real, VariableType.zReal),
                (loop.outputs[2], imaginary, VariableType.zImaginary),
            ] {
                variables[slot] = VariableValue(
                    value: value,
                    type: type,
                    hasMetadata: true,
                    status: PicoStatus.ok,
                    range: chosen.index
                )
            }
            try point(body: body)
        }
    }
}

extension ScriptRunner {
    /// Per EIS frequency: settling before the measurement, then this many periods of the signal, but
    /// at least the minimum integration time (31 frequencies from 100 kHz to 100 Hz take about 5 s).
    static let eisSettling = 0.1
    static let eisPeriods = 4.0
    static let eisMinimumIntegration = 0.05
}

extension ScriptRunner {
    /// NPV: from the base potential (E_begin), pulses to E_begin + k·E_step for the pulse time at the end
    /// of each step; the current at the end of each pulse.
    mutating func normalPulse(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (begin, end, step, pulseTime, rate) = (p[0], p[1], p[2], p[3], p[4])
        try requirePositive(step, pulseTime, rate, statement: statement)
        let interval = step / rate
        guard pulseTime < interval else { throw fail(ScriptErrorCode.outOfBounds, statement) }
        let steps = try steps(from: begin, to: end, step: step, statement)
        let direction = end >= begin ? 1.0 : -1.0
        for index in 0...steps {
            let pulse = begin + direction * Double(index) * step
            cell.apply(begin, at: time)
            time += interval - pulseTime
            cell.apply(pulse, at: time)
            time += pulseTime
            let current = cell.current(at: time)
            try waitForSchedule()
            store(pulse, type: .appliedPotential, in: loop.outputs[0])
            storeCurrent(current, in: loop.outputs[1])
            try point(body: body)
        }
    }

    /// OCP: the cell off, its rest potential every interval.
    mutating func openCircuit(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (interval, duration) = (p[0], p[1])
        for _ in 0..<(try intervalPoints(interval, duration, statement)) {
            time += interval
            try waitForSchedule()
            store(noise.perturb(cell.model.restPotential, fullScale: 0.001), type: .weVsRE, in: loop.outputs[0])
            try point(body: body)
        }
    }

    /// CP: a constant current; the potential it takes across the cell's DC resistance, every interval.
    mutating func chronopotentiometry(
        _ loop: MeasurementLoop,
        _ p: [Double],
        _ body: Range<Int>,
        _ statement: ScriptStatement
    ) throws(RunStop) {
        let (current, interval, duration) = (p[0], p[1], p[2])
        for _ in 0..<(try intervalPoints(interval, duration, statement)) {
            time += interval
            try waitForSchedule()
            let potential = cell.model.restPotential + current * cell.model.resistance
            store(noise.perturb(potential, fullScale: 0.001), type: .weVsRE, in: loop.outputs[0])
            storeCurrent(current, in: loop.outputs[1])
            try point(body: body)
        }
    }
}
