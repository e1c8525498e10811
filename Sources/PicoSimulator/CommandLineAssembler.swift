/// Splits the UART byte stream into command lines at `\n` (a `\r` before it is dropped), remembering when a
/// line grew past the limit instead of storing it.
struct CommandLineAssembler {
    let maximumLength: Int
    private(set) var line: [UInt8] = []
    private(set) var overlong = false

    init(maximumLength: Int) {
        self.maximumLength = maximumLength
        line.reserveCapacity(maximumLength + 1)
    }

    /// Adds one byte; returns `true` when a line is complete (read it from `line`, then call `reset`).
    mutating func add(_ byte: UInt8) -> Bool {
        if byte == UInt8(ascii: "\n") {
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.count > maximumLength { overlong = true }
            return true
        }
        if line.count <= maximumLength + 1 {
            line.append(byte)
        } else {
            overlong = true
        }
        return false
    }

    mutating func reset() {
        line.removeAll(keepingCapacity: true)
        overlong = false
    }
}
