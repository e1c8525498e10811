import BLEHost
public import BLEWire
import Synchronization

/// What bluetoothd's agent does for the kernel's own pairing, for one device and one program run: the
/// kernel (6.1 and later) asks user space to confirm even a Just Works pairing it started, and asks for
/// the passkey when the device shows one. Without bluetoothd nobody answers and the pairing times out;
/// this agent answers for `peer` only — confirms Just Works, gives `passkey` when asked (else refuses) —
/// over the management interface. Other devices' questions are left to whoever else listens.
public final class KernelPairingAgent: Sendable {
    public let peer: BluetoothAddress
    let passkey: UInt32?
    let channel: ManagementChannel
    private let log = Mutex<[String]>([])

    /// Management event codes and commands (BlueZ doc/mgmt-api.txt).
    enum Code {
        static let userConfirmRequest: UInt16 = 0x000F
        static let userPasskeyRequest: UInt16 = 0x0010
        static let authenticationFailed: UInt16 = 0x0011
        static let userConfirmReply: UInt16 = 0x001C
        static let userPasskeyReply: UInt16 = 0x001E
        static let userPasskeyNegativeReply: UInt16 = 0x001F
    }

    private init(peer: BluetoothAddress, passkey: UInt32?, channel: ManagementChannel) {
        self.peer = peer
        self.passkey = passkey
        self.channel = channel
    }

    /// Listens for the kernel's questions about `peer` until `stop()`.
    public static func start(
        for peer: BluetoothAddress,
        passkey: UInt32? = nil
    ) throws(BLELinuxError) -> KernelPairingAgent {
        let channel: ManagementChannel
        do throws(SystemError) {
            channel = try ManagementChannel.open()
        } catch {
            throw BLELinuxError(error, subject: "the management interface (pairing agent for \(peer))")
        }
        let agent = KernelPairingAgent(peer: peer, passkey: passkey, channel: channel)
        do throws(TransportError) {
            try channel.start { [weak agent] code, index, parameters in agent?.event(code, index, parameters) }
        } catch {
            channel.close()
            throw BLELinuxError(.securityFailed, "the management interface did not start: \(error)")
        }
        return agent
    }

    /// What the agent answered, one line per question (for diagnostics).
    public var answers: [String] { log.withLock { $0 } }

    public func stop() { channel.close() }

    deinit { channel.close() }

    /// Reader thread: one management event.
    private func event(_ code: UInt16, _ index: UInt16, _ parameters: UnsafeRawBufferPointer) {
        guard [Code.userConfirmRequest, Code.userPasskeyRequest, Code.authenticationFailed].contains(code),
            parameters.count >= 7
        else { return }
        let address = BluetoothAddress(wireBytes: parameters[0..<6])
        guard address.value == peer.value else { return }
        let target = Array(parameters[0..<7])  // address and its management type (1 LE public, 2 LE random)
        switch code {
        case Code.userConfirmRequest:
            reply(Code.userConfirmReply, index, target, "confirmed the pairing the kernel asked about")
        case Code.userPasskeyRequest:
            if let passkey {
                let value = (0..<4).map { UInt8(truncatingIfNeeded: passkey >> (8 * $0)) }
                reply(Code.userPasskeyReply, index, target + value, "gave the passkey")
            } else {
                reply(Code.userPasskeyNegativeReply, index, target, "refused the passkey request (no --passkey)")
            }
        default:
            let status = parameters.count > 7 ? parameters[7] : 0
            log.withLock { $0.append("the kernel reports pairing failed (status 0x\(String(status, radix: 16)))") }
        }
    }

    private func reply(_ opcode: UInt16, _ index: UInt16, _ parameters: [UInt8], _ what: String) {
        do throws(TransportError) {
            try channel.send(opcode, index: index, parameters)
            log.withLock { $0.append(what) }
        } catch {
            log.withLock { $0.append("could not answer the kernel: \(error)") }
        }
    }
}
