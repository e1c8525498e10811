import BLEHost
public import BLEWire
import Coordination
import Synchronization

/// What bluetoothd's agent and key storage do for the kernel's own pairing, for one device and one
/// program run: the kernel (6.1 and later) asks user space to confirm even a Just Works pairing it
/// started, and asks for the passkey when the device shows one. Without bluetoothd nobody answers and
/// the pairing times out; this agent answers for `peer` only — confirms Just Works, gives `passkey`
/// when asked (else refuses) — over the management interface. Other devices' questions are left to
/// whoever else listens.
///
/// With `keys` (and no bluetoothd running, which owns them otherwise), it also keeps bonds across runs:
/// before the connection it makes the adapter bondable and loads the stored long-term keys into the
/// kernel (Load Long Term Keys replaces the adapter's list, so every stored bond of the adapter goes
/// in), and hands every New Long Term Key the kernel reports for `peer` to `keys.save`.
public final class KernelPairingAgent: Sendable {
    /// The one device whose pairing questions the agent answers and whose new keys it counts and keeps.
    public let peer: BluetoothAddress
    let passkey: UInt32?
    let channel: ManagementChannel
    let keeper: Keeper?
    private let log = Mutex<[String]>([])
    private let pending = Mutex<PendingCommand?>(nil)
    private let commandTokens = Atomic<UInt64>(0)
    /// The commands' timeouts, on the host's one timer mechanism.
    private let clock = SystemClock()

    /// The command waiting for its Command Complete or Status; `token` tells it from a later command of
    /// the same opcode when the earlier one's wake comes.
    private struct PendingCommand {
        let opcode: UInt16
        let token: UInt64
        let continuation: CheckedContinuation<UInt8?, Never>
    }
    private let progress = PairingProgress()

    /// Where the adapter's bonds are kept, and the adapter.
    public struct Keeper: Sendable {
        /// The adapter's kernel index (N of `hciN`): the adapter made bondable and loaded with the keys, and
        /// the only one whose new keys are kept.
        public let index: UInt16
        /// Every stored bond of the adapter. Called once when the agent starts (not at all while bluetoothd
        /// runs); all of them go into the kernel, replacing its list.
        public let load: @Sendable () -> [SecurityBond]
        /// Keeps a new bond with `peer`: called on the management channel's reader thread for each New Long Term
        /// Key that the kernel marks to be stored and that this side can encrypt with as central.
        public let save: @Sendable (SecurityBond) -> Void

        /// The bond storage of adapter `index`.
        public init(
            index: UInt16,
            load: @escaping @Sendable () -> [SecurityBond],
            save: @escaping @Sendable (SecurityBond) -> Void
        ) {
            self.index = index
            self.load = load
            self.save = save
        }
    }

    /// Management event codes and commands (BlueZ doc/mgmt-api.txt).
    enum Code {
        static let userConfirmRequest: UInt16 = 0x000F
        static let userPasskeyRequest: UInt16 = 0x0010
        static let authenticationFailed: UInt16 = 0x0011
        static let commandComplete: UInt16 = 0x0001
        static let commandStatus: UInt16 = 0x0002
        static let newLongTermKey: UInt16 = 0x000A
        static let setBondable: UInt16 = 0x0009
        static let loadLongTermKeys: UInt16 = 0x0013
        static let unpairDevice: UInt16 = 0x001B
        static let userConfirmReply: UInt16 = 0x001C
        static let userPasskeyReply: UInt16 = 0x001E
        static let userPasskeyNegativeReply: UInt16 = 0x001F
    }

    private init(peer: BluetoothAddress, passkey: UInt32?, channel: ManagementChannel, keeper: Keeper?) {
        self.peer = peer
        self.passkey = passkey
        self.channel = channel
        self.keeper = keeper
    }

    /// Listens for the kernel's questions about `peer` until `stop()`; with `keeper`, loads the adapter's
    /// bonds first and keeps new ones (unless bluetoothd runs).
    public static func start(
        for peer: BluetoothAddress,
        passkey: UInt32? = nil,
        keeper: Keeper? = nil
    ) async throws(BLELinuxError) -> KernelPairingAgent {
        let channel: ManagementChannel
        do throws(SystemError) {
            channel = try ManagementChannel.open()
        } catch {
            throw BLELinuxError(error, subject: "the management interface (pairing agent for \(peer))")
        }
        let kept = keeper.flatMap { BluetoothDaemon.isRunning ? nil : $0 }
        let agent = KernelPairingAgent(peer: peer, passkey: passkey, channel: channel, keeper: kept)
        do throws(TransportError) {
            try channel.start { [weak agent] code, index, parameters in agent?.event(code, index, parameters) }
        } catch {
            channel.close()
            throw BLELinuxError(.securityFailed, "the management interface did not start: \(error)")
        }
        if let kept {
            let records = kept.load().map(KernelLongTermKey.record(for:))
            let count = UInt16(records.count)
            let load =
                [UInt8(truncatingIfNeeded: count), UInt8(truncatingIfNeeded: count >> 8)] + records.flatMap { $0 }
            for (opcode, parameters, what) in [
                (Code.setBondable, [UInt8(1)], "Set Bondable"), (Code.loadLongTermKeys, load, "Load Long Term Keys"),
            ] {
                let status = await agent.command(opcode, index: kept.index, parameters)
                if status != 0 {
                    agent.stop()
                    throw BLELinuxError(
                        .securityFailed,
                        "the kernel refused \(what) on hci\(kept.index) (management status \(status.map { "0x" + String($0, radix: 16) } ?? "none"))"
                    )
                }
            }
        }
        return agent
    }

    /// Forgets `peer`'s keys in the kernel (Unpair Device) on adapter `index`, under either LE address type
    /// (the kernel files keys by address and type); true when it had some.
    public static func unpair(_ peer: BluetoothAddress, index: UInt16) async throws(BLELinuxError) -> Bool {
        let channel: ManagementChannel
        do throws(SystemError) {
            channel = try ManagementChannel.open()
        } catch {
            throw BLELinuxError(error, subject: "the management interface (unpair \(peer))")
        }
        let agent = KernelPairingAgent(peer: peer, passkey: nil, channel: channel, keeper: nil)
        defer { agent.stop() }
        do throws(TransportError) {
            try channel.start { [weak agent] code, index, parameters in agent?.event(code, index, parameters) }
        } catch {
            throw BLELinuxError(.securityFailed, "the management interface did not start: \(error)")
        }
        var forgotten = false
        for type: UInt8 in [1, 2] {  // LE public, LE random
            let status = await agent.command(Code.unpairDevice, index: index, peer.wireBytes + [type, 0])
            forgotten = forgotten || status == 0
        }
        return forgotten
    }

    /// Whether bluetoothd runs (it owns the kernel's keys then).
    public static var bluetoothDaemonRuns: Bool { BluetoothDaemon.isRunning }

    /// New Long Term Keys for `peer` the kernel reported while this agent listened: a pairing happened.
    public var keysReceived: Int { progress.snapshot.keys }

    /// Waits up to `timeout` for the kernel to report a new key for `peer`, or that the pairing failed,
    /// and gives the keys reported. The kernel raises the link's security when encryption starts and
    /// reports the keys after the key distribution that follows, so an encrypted link does not yet
    /// mean the keys are known.
    public func keysReported(within timeout: Duration) async -> Int {
        await progress.wait(upTo: timeout) { $0.keys > 0 || $0.failures > 0 }.keys
    }

    /// Waits up to `timeout` for a pairing the agent answered a question about to end (its key or its
    /// failure reported), so that stopping the agent does not lose the key; returns at once when none is
    /// under way.
    public func settle(upTo timeout: Duration) async {
        _ = await progress.wait(upTo: timeout) { !$0.underWay }
    }

    /// Sends one command and waits (up to 5 s) for its Command Complete or Status; nil when none came.
    private func command(_ opcode: UInt16, index: UInt16, _ parameters: [UInt8]) async -> UInt8? {
        let token = commandTokens.add(1, ordering: .relaxed).newValue
        return await withCheckedContinuation { (continuation: CheckedContinuation<UInt8?, Never>) in
            pending.withLock { $0 = PendingCommand(opcode: opcode, token: token, continuation: continuation) }
            // A wake after the answer finds another command, or none, and leaves it alone.
            clock.wake(at: clock.now + .seconds(5)) { [weak self] in self?.expire(token) }
            do throws(TransportError) {
                try channel.send(opcode, index: index, parameters)
            } catch {
                finish(opcode, nil)
            }
        }
    }

    /// Ends the waiting command with `status` if it is for `opcode` (its answer).
    private func finish(_ opcode: UInt16, _ status: UInt8?) {
        end(with: status) { $0.opcode == opcode }
    }

    /// The timeout of the command with `token`, if it still waits: it ends with no status.
    private func expire(_ token: UInt64) {
        end(with: nil) { $0.token == token }
    }

    /// Ends the waiting command with `status` if `matches` says it is the one meant.
    private func end(with status: UInt8?, where matches: (PendingCommand) -> Bool) {
        let waiter = pending.withLock { pending -> CheckedContinuation<UInt8?, Never>? in
            guard let current = pending, matches(current) else { return nil }
            pending = nil
            return current.continuation
        }
        waiter?.resume(returning: status)
    }

    /// What the agent answered, one line per question (for diagnostics).
    public var answers: [String] { log.withLock { $0 } }

    /// Stops answering: closes the management channel, waiting for its reader thread unless called on it.
    public func stop() { channel.close() }

    deinit { channel.close() }

    /// Reader thread: one management event.
    private func event(_ code: UInt16, _ index: UInt16, _ parameters: UnsafeRawBufferPointer) {
        if code == Code.commandComplete || code == Code.commandStatus, parameters.count >= 3 {
            return finish(UInt16(parameters[0]) | UInt16(parameters[1]) << 8, parameters[2])
        }
        if code == Code.newLongTermKey, parameters.count >= 1 + KernelLongTermKey.length {
            let record = UnsafeRawBufferPointer(rebasing: parameters[1...])
            guard let bond = KernelLongTermKey.bond(from: record), bond.peer.value == peer.value else { return }
            if parameters[0] == 1, let keeper, index == keeper.index { keeper.save(bond) }
            return progress.keyArrived()
        }
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
            progress.failed()
        }
    }

    private func reply(_ opcode: UInt16, _ index: UInt16, _ parameters: [UInt8], _ what: String) {
        do throws(TransportError) {
            try channel.send(opcode, index: index, parameters)
            log.withLock { $0.append(what) }
            progress.answered()
        } catch {
            log.withLock { $0.append("could not answer the kernel: \(error)") }
        }
    }
}
