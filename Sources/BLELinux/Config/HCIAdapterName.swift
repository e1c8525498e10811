/// A kernel Bluetooth adapter, `hciN` (N from 0 to 65534; 65535 is the kernel's "no device").
public struct HCIAdapterName: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's device index, N of `hciN` (0 to 65534).
    public let index: UInt16

    /// The accepted form of an adapter name on the command line, for error messages.
    public static let acceptedForms = "hciN with N a decimal number from 0 to 65534 (hci0, hci1, …)"

    /// The adapter with kernel index `index`. Traps on 0xFFFF (`HCI_DEV_NONE`); parse user input with
    /// `init(parsing:)` instead.
    public init(index: UInt16) {
        precondition(index != 0xFFFF, "0xFFFF is HCI_DEV_NONE")
        self.index = index
    }

    /// Parses `hciN`.
    public init(parsing text: some StringProtocol) throws(ArgumentSyntaxError) {
        let text = String(text)
        func fail(_ position: Int, _ problem: String) -> ArgumentSyntaxError {
            ArgumentSyntaxError(
                what: "adapter",
                text: text,
                position: position,
                problem: problem,
                acceptedForms: Self.acceptedForms
            )
        }
        guard !text.isEmpty else { throw fail(1, "the adapter name is missing") }
        guard text.hasPrefix("hci") else { throw fail(1, "an adapter name starts with 'hci'") }
        let digits = text.dropFirst(3)
        guard !digits.isEmpty else { throw fail(4, "the adapter number is missing") }
        if let bad = digits.firstIndex(where: { !("0"..."9").contains($0) }) {
            throw fail(text.distance(from: text.startIndex, to: bad) + 1, "'\(text[bad])' is not a decimal digit")
        }
        guard digits.count == 1 || digits.first != "0" else { throw fail(4, "the number has a leading zero") }
        guard let index = UInt16(digits), index != 0xFFFF else { throw fail(4, "the number is above 65534") }
        self.init(index: index)
    }

    /// The name as the kernel and `hciconfig` write it: `hci0`.
    public var description: String { "hci\(index)" }
}
