/// The cell as the instrument drives it: switched on or off (`cell_on`, `cell_off`), and the potential
/// applied while on. It belongs to the device, not to a script: a script that fails after `cell_on` leaves
/// the cell on for whatever comes next, as the firmware does (`on_finished:` does not run after an error).
public struct SimulatedCell: Sendable, Equatable, CustomStringConvertible {
    /// Whether the cell is switched on.
    public var isOn: Bool
    /// The potential set (V); applied to the cell while it is on.
    public var potential: Double

    /// A cell; by default off at 0 V, as after power-up.
    public init(isOn: Bool = false, potential: Double = 0) {
        self.isOn = isOn
        self.potential = potential
    }

    /// `cell on at 0.5 V`, `cell off`.
    public var description: String {
        isOn ? "cell on at \(potential) V" : "cell off"
    }
}
