/// The CCCD bits one connection's client wrote, by characteristic value handle, kept in an array
/// indexed by handle: a database's handles are few and dense, and `notify` looks its bits up for every
/// notification without hashing.
struct CCCDTable {
    private var bits: [UInt16] = []

    /// The bits written for `valueHandle` (0 when none were).
    subscript(valueHandle: UInt16) -> UInt16 {
        get {
            let index = Int(valueHandle)
            return index < bits.count ? bits[index] : 0
        }
        set {
            let index = Int(valueHandle)
            if index >= bits.count {
                guard newValue != 0 else { return }
                bits.append(contentsOf: repeatElement(0, count: index + 1 - bits.count))
            }
            bits[index] = newValue
        }
    }
}
