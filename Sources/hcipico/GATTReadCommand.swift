import ArgumentParser
import BLEHost
import PicoLink
import Terminal

/// `hcipico gatt DEVICE read HANDLE|UUID`: one value, however long.
struct GATTReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a characteristic or descriptor value (long values with Read Blob).",
        discussion: """
            Prints the value as hex (default), as text (UTF-8, control characters escaped) or as one JSON \
            object {"handle", "value_hex", "text"} (text null when the value is not UTF-8).
            """
    )

    enum Format: String, EnumerableFlag {
        case hex, text, json

        static func help(for value: Format) -> ArgumentHelp? {
            switch value {
            case .hex: "Print the value as hex (the default)."
            case .text: "Print the value as text."
            case .json: "Print one JSON object."
            }
        }
    }

    @OptionGroup var link: LinkOptions

    @Option(help: "The receive MTU to offer in the exchange (23 to 517).")
    var mtu: Int = ATTBearer.maximumMTU

    @Argument(help: ArgumentHelp("A handle (0x0003) or a UUID (2A00).", valueName: "attribute"))
    var attribute: String

    @Flag var format: Format = .hex

    func validate() throws {
        guard (ATTBearer.defaultMTU...ATTBearer.maximumMTU).contains(mtu) else {
            throw ValidationError("--mtu must be from 23 to 517, not \(mtu)")
        }
        _ = try AttributeSelector(argument: attribute)
    }

    func run() async throws {
        let selector = try AttributeSelector(argument: attribute)
        let format = self.format
        let (handle, value, excess) = try await link.withClient(mtu: mtu, "read \(selector)") {
            link throws(GATTError) in
            let handle = try await selector.handle(on: link.client)
            let (value, excess) = try await link.client.readLongValue(handle)
            return (handle, value, excess)
        }
        if excess {
            StandardError.report(
                "0x\(String(handle, radix: 16)): the server offered more than 512 bytes, the longest an attribute "
                    + "value may be; its first 512 are shown"
            )
        }
        switch format {
        case .hex: ValueText.emit(AttributeValueText.hex(value) + "\n")
        case .text: ValueText.emit(AttributeValueText.line(value) + "\n")
        case .json:
            let text = AttributeValueText.utf8(value).map { JSONText.quoted($0) } ?? "null"
            let hex = AttributeValueText.hex(value)
            ValueText.emit("{\"handle\":\(handle),\"value_hex\":\"\(hex)\",\"text\":\(text)}\n")
        }
    }
}
