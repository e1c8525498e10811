import ArgumentParser
import BLEHost
import Coordination
import DeviceLinks

/// `hcipico gatt DEVICE subscribe HANDLE|UUID`: print notifications or indications as they come.
struct GATTSubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print a characteristic's notifications (or indications) with timestamps.",
        discussion: """
            One line per value, flushed at once: 'TIME 0xHANDLE VALUE' with the value as hex or text \
            (TIME is UTC, ISO 8601 with microseconds), or with --format jsonl one JSON object \
            {"t": seconds since 1970 (UTC), "handle", "value_hex", "text"} (text null when not UTF-8). \
            --write sends values (hex) once the subscription is on, to the same characteristic or to \
            --write-to: a command for a device that answers by notification. Runs until --count values \
            arrived (exit 0) or a signal (the subscription is turned off on the device and the link closed; \
            exit 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 141 when standard output closed).
            """
    )

    @OptionGroup var link: LinkOptions

    @Argument(help: ArgumentHelp("The characteristic: its value handle (0x0003) or its UUID.", valueName: "attribute"))
    var attribute: String

    @Flag(
        help:
            "Ask for indications (acknowledged); the default is notifications, or indications when the characteristic only has those."
    )
    var indicate = false

    @Option(help: "Stop after this many values.")
    var count: Int?

    @Option(help: "How to print each value: hex, text or jsonl.")
    var format: NotificationLine.Format = .hex

    @Option(help: "A value (hex) to write once subscribed; repeat for several, written in order.")
    var write: [String] = []

    @Option(help: "Where --write goes (a handle or UUID; default: the subscribed characteristic).")
    var writeTo: String?

    func validate() throws {
        _ = try AttributeSelector(argument: attribute)
        if let writeTo { _ = try AttributeSelector(argument: writeTo) }
        for value in write { _ = try ValueText.parseHex(value, what: "--write") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if writeTo != nil && write.isEmpty { throw ValidationError("--write-to goes with --write") }
    }

    func run() async throws {
        let selector = try AttributeSelector(argument: attribute)
        let target = try writeTo.map { text throws(ValidationError) in try AttributeSelector(argument: text) }
        let values = try write.map { text throws(ValidationError) in try ValueText.parseHex(text, what: "--write") }
        let printer = SubscriptionPrinter(format: format, limit: count)
        let indicate = self.indicate
        let ending = try await link.withClient("subscribe \(selector)") { link throws(GATTError) in
            let client = link.client
            let profile = try await client.discoverProfile()
            let characteristic = try selector.characteristic(in: profile)
            if indicate && !characteristic.properties.contains(.indicate) {
                throw .invalidArgument("\(characteristic) does not indicate")
            }
            let writeHandle = try target?.handle(in: profile) ?? characteristic.valueHandle
            let withoutResponse = profile.takesOnlyWriteCommands(at: writeHandle)
            let subscription = try await client.subscribe(
                to: characteristic,
                kind: indicate ? .indications : nil,
                ended: { reason in printer.finish(.lost(reason)) },
                { value in printer.received(value, handle: characteristic.valueHandle) }
            )
            Shutdown.shared.onStop { reason in printer.finish(.stopped(reason)) }
            for value in values {
                if withoutResponse {
                    try await client.writeWithoutResponse(value, to: writeHandle)
                } else {
                    try await client.write(value, to: writeHandle)
                }
            }
            let ending = await printer.ending.wait()
            Shutdown.shared.onStop(nil)
            if case .lost(let reason) = ending { throw reason }
            // Turn the subscription off on the device while the link is up (bounded: a silent peer must
            // not hold the exit up).
            await Shutdown.bounded(.seconds(2)) { try? await client.unsubscribe(subscription) }
            return ending
        }
        if case .stopped(let reason) = ending { throw reason.exitStatus.exitCode }
    }
}
