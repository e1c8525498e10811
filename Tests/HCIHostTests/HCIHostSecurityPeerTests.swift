import BLEHost
import BLETesting
import BLEWire
import Foundation
import Synchronization
import Testing

/// Pairing and encryption against Bumble's Security Manager (the peer's own SMP, not ours), over H4/TCP:
/// every case reads values the peer's GATT server guards with its encryption and authentication checks.
@Suite("HCIHost pairing against the Bumble peer", .serialized, .enabled(if: peerScript != nil, peerSkipReason))
struct HCIHostSecurityPeerTests {
    static let encryptedUUID = BluetoothUUID("53656375-0001-4000-8000-00805f9b34fb")!
    static let authenticatedUUID = BluetoothUUID("53656375-0002-4000-8000-00805f9b34fb")!
    static let serviceUUID = BluetoothUUID("53656375-0000-4000-8000-00805f9b34fb")!

    /// A connected link to the first peripheral with the protected values discovered.
    struct Protected {
        let connection: HCIConnection
        let client: GATTClient
        let encrypted: GATTCharacteristic
        let authenticated: GATTCharacteristic

        static func open(_ run: PeerRun) async throws -> Protected {
            let peripheral = try #require(run.peer.peripherals.first)
            let connection = try await run.host.connect(to: peripheral)
            let client = try await GATTClient.connect(transport: connection.att, mtu: 247)
            return Protected(
                connection: connection,
                client: client,
                encrypted: try await client.characteristic(encryptedUUID, inService: serviceUUID),
                authenticated: try await client.characteristic(authenticatedUUID, inService: serviceUUID)
            )
        }

        func readFails(_ characteristic: GATTCharacteristic, with code: ATTErrorCode) async {
            do {
                _ = try await client.read(characteristic)
                Issue.record("read of \(characteristic.uuid) succeeded on an insufficiently secured link")
            } catch {
                #expect(error == .att(ATTError(code: code, handle: characteristic.valueHandle, request: 0x0A)))
            }
        }

        func close() async { try? await connection.disconnect() }
    }

    static func passkey(_ value: UInt32) -> PairingOptions {
        PairingOptions(requirement: .authenticated, ioCapability: .keyboardOnly, interaction: .passkey(value))
    }

    @Test("Secure Connections, Just Works: encrypted values open, authenticated ones stay shut")
    func secureConnectionsJustWorks() async throws {
        try await PeerRun.run(["--pairing", "sc", "--io", "none", "--protect"], name: "smp-sc-jw") { run in
            let link = try await Protected.open(run)
            await link.readFails(link.encrypted, with: .insufficientEncryption)
            let outcome = try await link.connection.pair(PairingOptions())
            #expect(outcome.bonded && outcome.bond.secureConnections && !outcome.bond.authenticated)
            #expect(outcome.bond.keySize == 16)
            #expect(
                link.connection.encryption == LinkEncryption(keySize: 16, authenticated: false, secureConnections: true)
            )
            #expect(try await link.client.read(link.encrypted) == Array("sealed with an encrypted link".utf8))
            await link.readFails(link.authenticated, with: .insufficientAuthentication)
            #expect(await run.peer.waitForEvent(containing: "\"paired\"") != nil)
            await link.close()
        }
    }

    @Test("Secure Connections, passkey entry: the peer shows 123456, this side types it")
    func secureConnectionsPasskey() async throws {
        try await PeerRun.run(["--pairing", "sc", "--io", "display", "--protect"], name: "smp-sc-passkey") { run in
            let link = try await Protected.open(run)
            await link.readFails(link.authenticated, with: .insufficientAuthentication)
            let outcome = try await link.connection.pair(Self.passkey(123_456))
            #expect(outcome.bonded && outcome.bond.secureConnections && outcome.bond.authenticated)
            #expect(try await link.client.read(link.authenticated) == Array("sealed with an authenticated link".utf8))
            #expect(await run.peer.waitForEvent(containing: "passkey-shown") != nil)
            await link.close()
        }
    }

    @Test("Secure Connections, numeric comparison: both sides show the same six digits, this side confirms")
    func numericComparison() async throws {
        try await PeerRun.run(["--pairing", "sc", "--io", "display-yesno", "--protect"], name: "smp-sc-nc") { run in
            let link = try await Protected.open(run)
            let shown = Mutex<UInt32?>(nil)
            let options = PairingOptions(
                requirement: .authenticated,
                ioCapability: .displayYesNo,
                interaction: PairingInteraction(confirmNumber: { number in
                    shown.withLock { $0 = number }
                    return true
                })
            )
            let outcome = try await link.connection.pair(options)
            #expect(outcome.bond.authenticated && outcome.bond.secureConnections)
            let number = try #require(shown.withLock { $0 })
            let event = try #require(await run.peer.waitForEvent(containing: "numeric-comparison"))
            #expect(event.contains("\"number\": \"\(PairingInteraction.digits(number))\""), "\(event) vs \(number)")
            #expect(try await link.client.read(link.authenticated) == Array("sealed with an authenticated link".utf8))
            await link.close()
        }
    }

    @Test("legacy pairing, passkey entry: STK from s1, then the LTK, EDIV and Rand the peer distributes")
    func legacyPasskey() async throws {
        let arguments = ["--pairing", "legacy", "--io", "display", "--passkey", "654321", "--protect"]
        try await PeerRun.run(arguments, name: "smp-legacy-passkey") { run in
            let link = try await Protected.open(run)
            let outcome = try await link.connection.pair(Self.passkey(654_321))
            #expect(outcome.bonded && !outcome.bond.secureConnections && outcome.bond.authenticated)
            #expect(try await link.client.read(link.authenticated) == Array("sealed with an authenticated link".utf8))
            await link.close()
            // The distributed key, not the STK, encrypts the next connection.
            let again = try await Protected.open(run)
            try await again.connection.startEncryption(outcome.bond)
            #expect(try await again.client.read(again.authenticated) == Array("sealed with an authenticated link".utf8))
            await again.close()
        }
    }

    @Test("a wrong passkey is refused by name, Secure Connections and legacy", arguments: ["sc", "legacy"])
    func wrongPasskey(pairing: String) async throws {
        let arguments = ["--pairing", pairing, "--io", "display", "--protect"]
        try await PeerRun.run(arguments, name: "smp-wrong-\(pairing)") { run in
            let link = try await Protected.open(run)
            do throws(SecurityError) {
                _ = try await link.connection.pair(Self.passkey(111_111))
                Issue.record("pairing with a wrong passkey succeeded")
            } catch {
                switch error {
                case .rejectedByPeer(let reason), .failedHere(let reason, _): #expect(reason == .confirmValueFailed)
                default: Issue.record("unexpected \(error)")
                }
                #expect("\(error)".contains("Confirm Value Failed (0x04)"))
            }
            #expect(link.connection.encryption == nil)
            await link.readFails(link.encrypted, with: .insufficientEncryption)
            await link.close()
        }
    }

    @Test("a reconnect encrypts from the bond without pairing again")
    func reconnectFromBond() async throws {
        try await PeerRun.run(["--pairing", "sc", "--io", "none", "--protect"], name: "smp-bond") { run in
            let first = try await Protected.open(run)
            let bond = try await first.connection.pair(PairingOptions()).bond
            await first.close()
            let again = try await Protected.open(run)
            try await again.connection.startEncryption(bond)
            #expect(try await again.client.read(again.encrypted) == Array("sealed with an encrypted link".utf8))
            #expect(run.peer.events.filter { $0.contains("\"paired\"") }.count == 1)
            await again.close()
        }
    }

    @Test("a peer that deleted its bond refuses the key (PIN or Key Missing); pairing again works")
    func peerForgetsBond() async throws {
        try await PeerRun.run(["--pairing", "sc", "--io", "none", "--protect"], name: "smp-forget") { run in
            let first = try await Protected.open(run)
            let bond = try await first.connection.pair(PairingOptions()).bond
            await first.close()
            kill(run.peer.processIdentifier, SIGHUP)
            #expect(await run.peer.waitForEvent(containing: "bonds-forgotten") != nil)
            let again = try await Protected.open(run)
            do throws(SecurityError) {
                try await again.connection.startEncryption(bond)
                Issue.record("encryption with a bond the peer deleted succeeded")
            } catch {
                #expect(error.isStaleBond, "\(error)")
            }
            if again.connection.disconnectReason == nil {
                _ = try await again.connection.pair(PairingOptions())
                #expect(try await again.client.read(again.encrypted) == Array("sealed with an encrypted link".utf8))
            }
            await again.close()
        }
    }
}
