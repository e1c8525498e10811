import ArgumentParser
import BLEHost
import Foundation

/// `hcipico gatt DEVICE write HANDLE|UUID VALUE`: one value, acknowledged (long writes prepared) or not.
struct GATTWriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write a characteristic or descriptor value.",
        discussion: """
            VALUE is hex (default: 0102ff, '01 02 ff' or 01:02:ff), or text with --text; --file writes a \
            file's bytes instead. A value longer than ATT_MTU − 3 is written with Prepare/Execute Write \
            (up to 512 bytes); --without-response sends one Write Command, which must fit in ATT_MTU − 3, \
            and is refused (64) for a characteristic that does not declare 'write without response' \
            unless --force.
            """
    )

    enum Encoding: String, EnumerableFlag {
        case hex, text

        static func help(for value: Encoding) -> ArgumentHelp? {
            value == .hex ? "VALUE is hex (the default)." : "VALUE is text, written as UTF-8."
        }
    }

    @OptionGroup var link: LinkOptions

    @Option(help: "The receive MTU to offer in the exchange (23 to 517).")
    var mtu: Int = ATTBearer.maximumMTU

    @Argument(help: ArgumentHelp("A handle (0x0003) or a UUID (2A00).", valueName: "attribute"))
    var attribute: String

    @Argument(help: "The value (hex, or text with --text); leave it out with --file.")
    var value: String?

    @Flag var encoding: Encoding = .hex

    @Option(help: "Write this file's bytes.")
    var file: String?

    @Flag(help: "Send a Write Command (no acknowledgement); the value must fit in ATT_MTU − 3.")
    var withoutResponse = false

    @Flag(help: "With --without-response: send the Write Command even if the characteristic does not declare it.")
    var force = false

    func validate() throws {
        guard (ATTBearer.defaultMTU...ATTBearer.maximumMTU).contains(mtu) else {
            throw ValidationError("--mtu must be from 23 to 517, not \(mtu)")
        }
        _ = try AttributeSelector(argument: attribute)
        _ = try bytes()
    }

    /// The bytes to write, from VALUE or --file.
    func bytes() throws(ValidationError) -> [UInt8] {
        switch (value, file) {
        case (nil, nil): throw ValidationError("give a VALUE or --file")
        case (.some, .some): throw ValidationError("give a VALUE or --file, not both")
        case (nil, .some(let path)):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--file \(path): cannot read it")
            }
            guard data.count <= 512 else {
                throw ValidationError("--file \(path): \(data.count) bytes; an attribute value is at most 512")
            }
            return Array(data)
        case (.some(let value), nil):
            let bytes = encoding == .text ? Array(value.utf8) : try ValueText.parseHex(value)
            guard bytes.count <= 512 else {
                throw ValidationError("VALUE: \(bytes.count) bytes; an attribute value is at most 512")
            }
            return bytes
        }
    }

    func run() async throws {
        let selector = try AttributeSelector(argument: attribute)
        let bytes = try self.bytes()
        let withoutResponse = self.withoutResponse
        let force = self.force
        try await link.withClient(mtu: mtu, "write \(selector)") { link throws(GATTError) in
            guard withoutResponse && !force else {
                let handle = try await selector.handle(on: link.client)
                return withoutResponse
                    ? try await link.client.writeWithoutResponse(bytes, to: handle)
                    : try await link.client.write(bytes, to: handle)
            }
            let profile = try await link.client.discoverProfile()
            let handle = try selector.handle(in: profile)
            if let characteristic = profile.characteristicRefusingWriteCommands(at: handle) {
                throw .invalidArgument(
                    "\(characteristic.uuid) declares \(characteristic.properties), not write without response; "
                        + "give --force to send a Write Command anyway"
                )
            }
            try await link.client.writeWithoutResponse(bytes, to: handle)
        }
    }
}
