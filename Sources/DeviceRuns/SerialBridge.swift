public import BLEHost
public import Coordination
public import DeviceLinks
public import PicoLink

/// A byte stream bridged to a device's BLE serial service, as `hcipico serial` runs it: what is read
/// from the input is sent (writes sized to the ATT MTU and paced by `SerialLink`), what the device
/// notifies is handed to `output` as it comes.
public struct SerialBridge: Sendable {
    /// The link to the device.
    public let link: DeviceLink
    /// Its serial service, subscribed.
    public let serial: SerialLink

    /// How a bridge ended, when it ended by itself (a stop is the program's).
    public enum End: Sendable {
        /// The input ended and the device was then quiet for the idle time.
        case finished
        /// The input of an endless bridge (a pseudo-terminal) closed.
        case inputClosed
        /// The link dropped.
        case linkLost(GATTError)
        /// Waiting for the device to be quiet failed.
        case quietFailed(SerialLinkError)
        /// A send failed; `hint` names the security a refusal asks for.
        case sendFailed(SerialLinkError, hint: String)
    }

    /// Finds the serial service on `link` (`profile`, or the one detected) and subscribes to what the
    /// device notifies: each notification goes to `output`.
    public static func open(
        on link: DeviceLink,
        profile: SerialProfile?,
        output: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) async throws(SerialLinkError) -> SerialBridge {
        let serial = try await SerialLink.open(client: link.client, profile: profile, receive: output)
        return SerialBridge(link: link, serial: serial)
    }

    /// Bridges `input` to the device until the first of: the input's end followed by `idle` of quiet
    /// from the device (or, when `endless`, the input's end alone), the link dropping, a failed send.
    /// `security` is what the link was asked to be (nil: nothing), for a refusal's hint.
    public func run(input: ByteStream, endless: Bool, idle: Duration, security: SecurityMode?) async -> End {
        await withTaskGroup(of: End.self) { group in
            group.addTask { .linkLost(await serial.waitUntilClosed()) }
            group.addTask { await pump(input, endless: endless, idle: idle, security: security) }
            // Both end once cancelled (the input's read, the waits), the first's end is the bridge's.
            let first = await group.next() ?? .inputClosed
            group.cancelAll()
            return first
        }
    }

    private func pump(_ input: ByteStream, endless: Bool, idle: Duration, security: SecurityMode?) async -> End {
        while let bytes = await input.read() {
            do throws(SerialLinkError) {
                try await serial.send(bytes)
            } catch {
                var hint = ""
                if case .gatt(let refusal) = error { hint = SecurityHint.suffix(for: refusal, mode: security) }
                return .sendFailed(error, hint: hint)
            }
        }
        if endless { return .inputClosed }
        do throws(SerialLinkError) {
            try await serial.waitUntilQuiet(for: idle)
            return .finished
        } catch {
            return .quietFailed(error)
        }
    }
}
