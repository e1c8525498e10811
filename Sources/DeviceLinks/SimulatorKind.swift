/// The devices this process can simulate (`sim:KIND`; `sim` alone is the EmStat Pico).
public enum SimulatorKind: String, CaseIterable, Sendable {
    /// An EmStat Pico running MethodSCRIPT.
    case pico
    /// An ESP32-style calculator: write `[a, b, op]`, the answer is notified.
    case calculator
    /// An HM-10 serial module: FFE0/FFE1, one characteristic both ways, echoing what it receives.
    case hm10
}
