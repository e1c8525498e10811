import BLEHost
import BLELinux
import BLEWire
import Logging
import Synchronization

/// Secures one link of hcipico's own HCI host as a `SecurityRequest` asks: encrypts from the
/// controller's bond store when it holds a bond with the peer, pairs when it does not (or, for `auto`,
/// when the device first refuses a request), and keeps every new bond in the store. Each step is
/// logged: the ones a person should see at notice level, the details at debug.
public final class HostLinkSecurity: Sendable {
    /// The link it secures.
    public let connection: HCIConnection
    /// The controller's bond store.
    public let store: BondStore
    /// What was asked.
    public let request: SecurityRequest
    private let logger: Logger
    private let raised = Mutex(false)
    private let failed = Mutex(false)

    /// A pairing on this link failed (the request it was for fails with the device's refusal).
    public var pairingFailed: Bool { failed.withLock { $0 } }

    /// Security for `connection` on the controller whose address is `controller`.
    public init(connection: HCIConnection, controller: BluetoothAddress, request: SecurityRequest, logger: Logger) {
        self.connection = connection
        self.request = request
        self.logger = logger
        store = BondStore(directory: request.bondDirectory, controller: controller)
    }

    private var peer: BluetoothAddress { connection.peer }

    /// Before the link is used: the bond's key, or a pairing for `encrypt` and `authenticate`.
    public func prepare() async throws(LinkOpenError) {
        let bond: SecurityBond?
        do {
            bond = try store.bond(for: peer)
        } catch {
            throw LinkOpenError(error.description, cause: .badInput)
        }
        let upfront = request.mode.upfront
        if let bond, !request.forcePairing, upfront.map({ $0.isMet(by: bond) }) ?? true {
            do throws(SecurityError) {
                logger.debug("\(peer): encrypting with the bond in \(store.path) (\(bond.level))")
                try await connection.startEncryption(bond)
                logger.debug("\(peer): encrypted (\(connection.encryption.map { "\($0.level)" } ?? "?"))")
                return
            } catch  where error.isStaleBond && request.mode == .auto && connection.disconnectReason == nil {
                logger.notice("\(peer): \(error); forgetting the bond and pairing again (--security auto)")
                try forget()
                try await pair(.encrypted)
                return
            } catch  where error.isStaleBond {
                throw LinkOpenError(
                    "\(peer): \(error) (remove it with 'hcipico bonds remove \(peer)', or use --security auto)",
                    cause: .securityFailed
                )
            } catch {
                throw LinkOpenError("\(peer): \(error)", cause: .securityFailed)
            }
        }
        if let upfront { try await pair(upfront) }
    }

    /// `auto` after the ATT bearer is up (an MTU exchange later): a device that sent a Security Request
    /// (an HM-10 set to pair, many sensors) is paired now rather than after its first refusal.
    public func answerSecurityRequest() async throws(LinkOpenError) {
        guard request.mode == .auto, connection.encryption == nil, let wanted = connection.securityRequest else {
            return
        }
        raised.withLock { $0 = true }
        logger.notice("\(peer) asks for security (Security Request): pairing (--security auto)")
        // A request for MITM protection is met when this side can take part; otherwise Just Works is
        // offered and the device decides (it may refuse, or answer later requests by name).
        let canAuthenticate = request.pairingOptions(.authenticated).ioCapability != .noInputNoOutput
        try await pair(wanted & 0x04 != 0 && canAuthenticate ? .authenticated : .encrypted)
    }

    /// The store's bond with the peer after `prepare` (what a pairing left, or what encrypted the link).
    public var bond: SecurityBond? { try? store.bond(for: peer) }

    /// `auto`: the device refused a request for want of security; pair once and say whether to retry.
    public func raise(_ code: ATTErrorCode) async -> Bool {
        let first = raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
        guard first else { return false }
        let requirement: SecurityRequirement = code == .insufficientAuthentication ? .authenticated : .encrypted
        if connection.meets(requirement) { return false }
        logger.notice("\(peer) answered \(code): pairing (--security auto)")
        do throws(LinkOpenError) {
            try await pair(requirement)
            return true
        } catch {
            logger.warning("\(error.description)")
            return false
        }
    }

    private func pair(_ requirement: SecurityRequirement) async throws(LinkOpenError) {
        let outcome: PairingOutcome
        let options = request.pairingOptions(requirement)
        logger.debug("\(peer): pairing for \(requirement), as \(options.ioCapability)")
        do throws(SecurityError) {
            outcome = try await connection.pair(options)
        } catch {
            let hint =
                options.ioCapability == .noInputNoOutput && requirement == .authenticated
                ? " (give --passkey, or run on a terminal to be asked)" : ""
            failed.withLock { $0 = true }
            throw LinkOpenError("\(peer): \(error)\(hint)", cause: .securityFailed)
        }
        guard outcome.bonded else {
            logger.notice("\(peer): paired (\(outcome.bond.level)); the device keeps no bond")
            return
        }
        do {
            try store.save(outcome.bond)
        } catch {
            throw LinkOpenError("\(peer): paired, but \(error)", cause: .bondNotKept)
        }
        logger.notice("\(peer): paired (\(outcome.bond.level)); bond kept in \(store.path)")
    }

    private func forget() throws(LinkOpenError) {
        do {
            try store.remove(peer)
        } catch {
            throw LinkOpenError(error.description, cause: .bondNotKept)
        }
    }
}
