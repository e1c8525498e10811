import BLEHost
import BLEWire

/// The management interface's Long Term Key record (BlueZ doc/mgmt-api.txt, Load Long Term Keys and the
/// New Long Term Key event): `| address (6) | address type (1) | key type (1) | central (1) | encryption
/// size (1) | EDIV (2) | Rand (8) | value (16) |`, least significant octet first. Key types: 0x00
/// unauthenticated legacy, 0x01 authenticated legacy, 0x02 unauthenticated P-256, 0x03 authenticated
/// P-256. A legacy key is kept when `central` is 1 (the key this side encrypts with as central).
enum KernelLongTermKey {
    static let length = 36

    /// The bond a New Long Term Key record describes, when it is a key this central can encrypt with.
    static func bond(from record: UnsafeRawBufferPointer) -> SecurityBond? {
        guard record.count >= length else { return nil }
        let addressType = record[6]
        let keyType = record[7]
        let central = record[8]
        guard addressType == 1 || addressType == 2, keyType <= 0x03 else { return nil }
        let secureConnections = keyType >= 0x02
        guard secureConnections || central == 1 else { return nil }
        var rand: UInt64 = 0
        for index in 0..<8 { rand |= UInt64(record[12 + index]) << (8 * index) }
        return SecurityBond(
            peer: BluetoothAddress(wireBytes: record[0..<6], type: addressType == 1 ? .public : .random),
            longTermKey: Array(record[20..<36].reversed()),
            ediv: UInt16(record[10]) | UInt16(record[11]) << 8,
            rand: rand,
            keySize: record[9],
            authenticated: keyType & 0x01 != 0,
            secureConnections: secureConnections
        )
    }

    /// The record Load Long Term Keys takes for `bond`.
    static func record(for bond: SecurityBond) -> [UInt8] {
        var record = bond.peer.wireBytes
        record.append(bond.peer.type == .public || bond.peer.type == .publicIdentity ? 1 : 2)
        record.append((bond.secureConnections ? 0x02 : 0x00) | (bond.authenticated ? 0x01 : 0x00))
        record.append(bond.secureConnections ? 0 : 1)
        record.append(bond.keySize)
        record += [UInt8(truncatingIfNeeded: bond.ediv), UInt8(truncatingIfNeeded: bond.ediv >> 8)]
        record += (0..<8).map { UInt8(truncatingIfNeeded: bond.rand >> (8 * $0)) }
        record += bond.longTermKey.reversed()
        return record
    }
}
