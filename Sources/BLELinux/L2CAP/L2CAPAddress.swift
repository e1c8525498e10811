import BLEWire
internal import CBlueZ
internal import Glibc

/// The `sockaddr_l2` of the ATT fixed channel: PSM 0 and CID 4. The kernel refuses a PSM together
/// with a CID (`EINVAL`), so the PSM stays 0 on an LE fixed channel.
enum L2CAPAddress {
    /// The ATT fixed channel (Core 5.4 Vol 3 Part A §2.1).
    static let attChannel: UInt16 = 0x0004
    /// The kernel's default MTU of a fixed channel (`L2CAP_DEFAULT_MTU`).
    static let defaultMTU = 672

    /// The kernel's `l2_bdaddr_type` of an LE address.
    static func kernelAddressType(_ type: BluetoothAddress.AddressType) -> UInt8 {
        switch type {
        case .public, .publicIdentity: UInt8(BDADDR_LE_PUBLIC)
        case .random, .randomIdentity: UInt8(BDADDR_LE_RANDOM)
        }
    }

    /// The address of `address` on the ATT channel; multi-byte fields little endian as the kernel reads
    /// them, the BD_ADDR in wire order.
    static func att(_ address: BluetoothAddress) -> sockaddr_l2 {
        var result = sockaddr_l2()
        result.l2_family = sa_family_t(AF_BLUETOOTH)
        result.l2_psm = 0
        result.l2_cid = attChannel.littleEndian
        result.l2_bdaddr_type = kernelAddressType(address.type)
        withUnsafeMutableBytes(of: &result.l2_bdaddr) { bytes in
            for (index, byte) in address.wireBytes.enumerated() { bytes[index] = byte }
        }
        return result
    }
}
