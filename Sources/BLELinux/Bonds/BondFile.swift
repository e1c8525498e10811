import BLEHost
import BLEWire
internal import Foundation

/// The JSON form of a bond store: `{"format": "hcipico-bonds", "version": 1, "controller": ADDRESS,
/// "bonds": [...]}`, keys as hex most significant octet first.
enum BondFile {
    static func encode(_ bonds: [SecurityBond], controller: BluetoothAddress) -> Data {
        let entries: [[String: Any]] = bonds.map { bond in
            var entry: [String: Any] = [
                "peer": bond.peer.description,
                "peer_type": typeName(bond.peer.type),
                "ltk": hex(bond.longTermKey),
                "ediv": Int(bond.ediv),
                "rand": String(bond.rand),
                "key_size": Int(bond.keySize),
                "authenticated": bond.authenticated,
                "secure_connections": bond.secureConnections,
            ]
            if let identity = bond.identityAddress {
                entry["identity"] = identity.description
                entry["identity_type"] = typeName(identity.type)
            }
            if let irk = bond.identityResolvingKey { entry["irk"] = hex(irk) }
            return entry
        }
        let document: [String: Any] = [
            "format": "hcipico-bonds", "version": 1, "controller": controller.description, "bonds": entries,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]))
        return (data ?? Data()) + Data("\n".utf8)
    }

    /// An identity address (one the controller resolved) is stored as the kind of address it is.
    static func typeName(_ type: BluetoothAddress.AddressType) -> String {
        type == .public || type == .publicIdentity ? "public" : "random"
    }

    static func decode(_ data: Data, path: String) throws(BondStore.Failure) -> [SecurityBond] {
        func bad(_ why: String) -> BondStore.Failure { BondStore.Failure(description: "\(path): \(why)") }
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw bad("not a bond store (invalid JSON)")
        }
        guard document["format"] as? String == "hcipico-bonds", document["version"] as? Int == 1,
            let entries = document["bonds"] as? [[String: Any]]
        else { throw bad("not a version 1 hcipico bond store") }
        var bonds: [SecurityBond] = []
        for (index, entry) in entries.enumerated() {
            guard let peerText = entry["peer"] as? String,
                let peer = BluetoothAddress(
                    peerText,
                    type: entry["peer_type"] as? String == "public" ? .public : .random
                ),
                let ltk = (entry["ltk"] as? String).flatMap(octets), ltk.count == 16,
                let ediv = entry["ediv"] as? Int, let randText = entry["rand"] as? String, let rand = UInt64(randText),
                let keySize = entry["key_size"] as? Int, (7...16).contains(keySize),
                let authenticated = entry["authenticated"] as? Bool,
                let secureConnections = entry["secure_connections"] as? Bool
            else { throw bad("bond \(index + 1) is incomplete or malformed") }
            let identity = (entry["identity"] as? String).flatMap {
                BluetoothAddress($0, type: entry["identity_type"] as? String == "public" ? .public : .random)
            }
            bonds.append(
                SecurityBond(
                    peer: peer,
                    longTermKey: ltk,
                    ediv: UInt16(truncatingIfNeeded: ediv),
                    rand: rand,
                    keySize: UInt8(keySize),
                    authenticated: authenticated,
                    secureConnections: secureConnections,
                    identityAddress: identity,
                    identityResolvingKey: (entry["irk"] as? String).flatMap(octets)
                )
            )
        }
        return bonds
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func octets(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let octet = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            result.append(octet)
        }
        return result
    }
}
