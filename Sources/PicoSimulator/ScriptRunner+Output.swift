import MethodSCRIPT

extension ScriptRunner {
    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Writes a whole line (with its `\n`).
    func emit(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { sink.write($0) }
    }

    /// Writes a one-character line such as `*`, `-`, `L`, `+`.
    func emitMarker(_ marker: UInt8) {
        emit([marker, UInt8(ascii: "\n")])
    }

    /// Writes `M`/`C` followed by 4 hex digits of `number`.
    func emitCounter(_ marker: UInt8, _ number: Int) {
        var bytes: [UInt8] = [marker]
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Self.hexDigits[(number >> shift) & 0xF])
        }
        bytes.append(UInt8(ascii: "\n"))
        emit(bytes)
    }

    /// Appends `<type><value><prefix>[,1<status>,2<range>]` for one package variable to `line`.
    mutating func appendVariable(_ variable: VariableValue) {
        line.append(UInt8(truncatingIfNeeded: variable.type.rawValue >> 8))
        line.append(UInt8(truncatingIfNeeded: variable.type.rawValue))
        if variable.isInteger, variable.value.isFinite, variable.value == variable.value.rounded(),
            abs(variable.value) < Double(PicoValueFormat.offset)
        {
            PicoValueFormat.appendInteger(Int64(variable.value), to: &line)
        } else {
            PicoValueFormat.append(variable.value, to: &line)
        }
        guard variable.hasMetadata else { return }
        line.append(UInt8(ascii: ","))
        line.append(UInt8(ascii: "1"))
        line.append(Self.hexDigits[Int(variable.status & 0xF)])
        line.append(UInt8(ascii: ","))
        line.append(UInt8(ascii: "2"))
        line.append(Self.hexDigits[Int(variable.range >> 4)])
        line.append(Self.hexDigits[Int(variable.range & 0xF)])
    }

    /// Stores a measured current in `slot`: autoranged, with noise, status and range metadata.
    mutating func storeCurrent(_ current: Double, in slot: Int) {
        let chosen = ranges.select(for: current).range
        let measured = noise.perturb(current, fullScale: chosen.fullScale)
        let status = ranges.status(for: measured, in: chosen) | (late ? PicoStatus.timingError : 0)
        variables[slot] = VariableValue(
            value: measured,
            type: .current,
            hasMetadata: true,
            status: status,
            range: chosen.index
        )
    }

    /// Stores a plain value (potential, frequency) in `slot`, without metadata.
    mutating func store(_ value: Double, type: VariableType, in slot: Int) {
        variables[slot] = VariableValue(value: value, type: type)
    }
}
