/// A fault a simulated device can be given, so that the handling of misbehaving devices can be
/// exercised without a radio.
public enum SimulatorFault: String, CaseIterable, Sendable {
    /// The peripheral answers nothing at all, not even the Exchange MTU request.
    case silent
    /// The Exchange MTU Response is cut to two bytes.
    case malformedMTU = "malformed-mtu"
    /// The Pico answers `Z` but goes on measuring until its script ends by itself.
    case ignoresAbort = "ignores-abort"
    /// The peripheral answers ATT requests but sends no notification: a Pico that never replies.
    case mute
    /// The link goes down once the peripheral has notified 2 KiB (mid-run for a Pico script).
    case dropsLink = "drops-link"
    /// The device stops answering once it has notified 512 bytes (mid-run for a Pico script): nothing more
    /// arrives, not even the reply to `Z`; the link stays up.
    case goesMute = "goes-mute"
}
