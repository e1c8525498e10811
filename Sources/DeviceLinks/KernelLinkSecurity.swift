import BLEHost
import BLELinux
import BLEWire
import Logging
import Synchronization

/// Security on the kernel path: the agent that answers the kernel's pairing questions and keeps its
/// bonds, and for `--security auto` the kernel asked to pair (Just Works without bluetoothd's agent)
/// when the device first refuses a request for want of security; the request is then sent once more.
public final class KernelLinkSecurity: Sendable {
    /// The link it secures.
    public let socket: L2CAPATTSocket
    private let logger: Logger
    private let raised = Mutex(false)

    /// `auto` security for `socket`.
    public init(socket: L2CAPATTSocket, logger: Logger) {
        self.socket = socket
        self.logger = logger
    }

    /// The agent that answers the kernel's pairing questions for `peer` and keeps the adapter's bonds in
    /// the store (loaded into the kernel before connecting, each new key saved).
    public static func startAgent(
        for peer: BluetoothAddress,
        adapter name: HCIAdapterName?,
        request: SecurityRequest,
        logger: Logger
    ) async throws(LinkOpenError) -> KernelPairingAgent {
        let adapter: HCIAdapterInfo
        let bonds: [SecurityBond]
        let store: BondStore
        do {
            adapter = try HCIAdapters.resolve(name)
        } catch {
            throw LinkOpenError(error.message, cause: .system(error))
        }
        store = BondStore(directory: request.bondDirectory, controller: adapter.address)
        do {
            bonds = try store.load()
        } catch {
            throw LinkOpenError(error.description, cause: .badInput)
        }
        let keeper = KernelPairingAgent.Keeper(
            index: adapter.name.index,
            load: { bonds },
            save: { bond in
                do {
                    try store.save(bond)
                    logger.notice("\(peer): paired by the kernel (\(bond.level)); bond kept in \(store.path)")
                } catch {
                    logger.warning("\(peer): paired by the kernel, but the bond was not kept: \(error)")
                }
            }
        )
        do throws(BLELinuxError) {
            return try await KernelPairingAgent.start(for: peer, passkey: request.passkey, keeper: keeper)
        } catch {
            throw LinkOpenError(error.message, cause: .system(error))
        }
    }

    /// Forgets `peer` in the adapter's bond file and in the kernel, and ends a link the kernel still
    /// holds to it (one encrypted with the old key would be reused without pairing), so that the next
    /// connection pairs anew; what cannot be forgotten is left as it is (the pairing then says so).
    public static func forget(
        _ peer: BluetoothAddress,
        adapter name: HCIAdapterName?,
        bondDirectory: String,
        logger: Logger
    ) async {
        guard let adapter = try? HCIAdapters.resolve(name) else { return }
        _ = try? BondStore(directory: bondDirectory, controller: adapter.address).remove(peer)
        do throws(BLELinuxError) {
            let hci = try HCISocket.open(adapter.name)
            defer { hci.close() }
            if try await hci.endConnection(to: peer) {
                logger.notice("\(peer): ended the link the kernel still held, so that the pairing starts anew")
            }
        } catch {
            logger.warning("\(peer): could not end the link the kernel may still hold: \(error.message)")
        }
        guard !KernelPairingAgent.bluetoothDaemonRuns else { return }
        _ = try? await KernelPairingAgent.unpair(peer, index: adapter.name.index)
    }

    /// Why a link the kernel was asked to secure is not: almost always a Security Manager that was never
    /// registered, because the adapter was powered without the management interface.
    public static func unsecured(_ peer: BluetoothAddress, _ level: L2CAPSecurityLevel) -> String {
        "\(peer): the kernel left the link at security \(level): it has no LE Security Manager on this adapter "
            + "(dmesg: \"security requested but not available\"). The kernel creates one when the adapter is "
            + "powered through the management interface (bluetoothd does that; without it: "
            + "btmgmt --index N power off && btmgmt --index N power on) and its cmac and ecdh crypto are available"
    }

    /// `auto`: the device refused a request for want of security; ask the kernel for the level once and
    /// say whether to retry.
    public func raise(_ code: ATTErrorCode) async -> Bool {
        let first = raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
        guard first else { return false }
        let level = SecurityMode.kernelLevel(code == .insufficientAuthentication ? .authenticated : .encrypted)
        logger.notice("\(socket.peer) answered \(code): asking the kernel for security \(level) (--security auto)")
        do throws(BLELinuxError) {
            try await socket.raiseSecurity(to: level)
            return true
        } catch  where error.kind == .securityFailed && socket.securityLevel != nil {
            logger.warning("\(Self.unsecured(socket.peer, socket.securityLevel ?? .low))")
            return false
        } catch {
            logger.warning("\(error.message)")
            return false
        }
    }
}
