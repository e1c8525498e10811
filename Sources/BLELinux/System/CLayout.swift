internal import CBlueZ

/// The C structures this module fills or reads, with Swift's view of their size beside C's `sizeof`
/// (from the shim), for the layout tests.
enum CLayout {
    struct Entry: Sendable {
        let name: String
        let swiftSize: Int
        let cSize: Int
    }

    static let entries: [Entry] = [
        Entry(name: "sockaddr_l2", swiftSize: MemoryLayout<sockaddr_l2>.size, cSize: cbluez_sizeof_sockaddr_l2()),
        Entry(name: "sockaddr_hci", swiftSize: MemoryLayout<sockaddr_hci>.size, cSize: cbluez_sizeof_sockaddr_hci()),
        Entry(name: "hci_filter", swiftSize: MemoryLayout<hci_filter>.size, cSize: cbluez_sizeof_hci_filter()),
        Entry(
            name: "l2cap_conninfo",
            swiftSize: MemoryLayout<l2cap_conninfo>.size,
            cSize: cbluez_sizeof_l2cap_conninfo()
        ),
        Entry(name: "bt_security", swiftSize: MemoryLayout<bt_security>.size, cSize: cbluez_sizeof_bt_security()),
        Entry(name: "hci_dev_info", swiftSize: MemoryLayout<hci_dev_info>.size, cSize: cbluez_sizeof_hci_dev_info()),
    ]

    /// Offsets of the `sockaddr_l2` fields that follow the packed `bdaddr_t`, Swift's and C's.
    static let sockaddrL2CIDOffset = (
        MemoryLayout<sockaddr_l2>.offset(of: \.l2_cid)!, cbluez_offsetof_sockaddr_l2_cid()
    )
    static let sockaddrL2TypeOffset = (
        MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr_type)!, cbluez_offsetof_sockaddr_l2_bdaddr_type()
    )

    /// Constants the tests compare with the values the kernel ABI fixes.
    static let addressFamily = Int(AF_BLUETOOTH)
    static let protocolL2CAP = Int(BTPROTO_L2CAP)
    static let protocolHCI = Int(BTPROTO_HCI)
    static let socketSeqPacket = Int(SOCK_SEQPACKET.rawValue)
    static let socketRaw = Int(SOCK_RAW.rawValue)
    static let socketNonBlock = Int(SOCK_NONBLOCK.rawValue)
    static let socketCloseOnExec = Int(SOCK_CLOEXEC.rawValue)
    static let levelBluetooth = Int(SOL_BLUETOOTH)
    static let levelL2CAP = Int(SOL_L2CAP)
    static let levelHCI = Int(SOL_HCI)
    static let levelSocket = Int(SOL_SOCKET)
    static let optionSecurity = Int(BT_SECURITY)
    static let optionReceiveMTU = Int(BT_RCVMTU)
    static let optionConnectionInfo = Int(L2CAP_CONNINFO)
    static let optionHCIFilter = Int(HCI_FILTER)
    static let optionSocketError = Int(SO_ERROR)
    static let ioctlGetDeviceList = Int(cbluez_hcigetdevlist())
    static let ioctlGetDeviceInfo = Int(cbluez_hcigetdevinfo())
    static let hciDeviceInfoSize = cbluez_sizeof_hci_dev_info()
    static let ioctlGetConnectionInfo = Int(cbluez_hcigetconninfo())
    static let connectionInfoAnswerOffset = cbluez_offsetof_hci_conn_info_req_conn_info()
}
