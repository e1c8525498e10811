/// A person who can answer pairing's questions (a terminal, a web page); without one, a pairing offers
/// no input or output (Just Works), or types the passkey it was given.
public protocol PairingPrompter: Sendable {
    /// The passkey the device shows, as the person typed it (nil: no answer).
    func enterPasskey() async -> UInt32?
    /// Shows the passkey the person is to type on the device.
    func show(passkey: UInt32) async
    /// Whether the device shows `number` too.
    func confirm(number: UInt32) async -> Bool
}
