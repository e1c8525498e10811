import BLEWire
internal import CBlueZ
internal import Glibc

/// The kernel's Bluetooth adapters, found with `HCIGETDEVLIST` and `HCIGETDEVINFO` on an unbound raw
/// HCI socket.
public enum HCIAdapters {
    /// Every adapter the kernel has, up or down, in index order.
    public static func list() throws(BLELinuxError) -> [HCIAdapterInfo] {
        do throws(SystemError) {
            let control = try openControlSocket()
            return try deviceIndices(control).map { index throws(SystemError) in try info(control, index: index) }
        } catch {
            throw BLELinuxError(error, subject: "the adapter list")
        }
    }

    /// The named adapter, or the first that is up. Fails when it does not exist or, with `requireUp`,
    /// is down; with `requireDown` (the user channel), when it is up.
    public static func resolve(
        _ name: HCIAdapterName?,
        requireUp: Bool = true,
        requireDown: Bool = false
    ) throws(BLELinuxError) -> HCIAdapterInfo {
        let subject = name.map(String.init(describing:)) ?? "(first adapter that is up)"
        let candidates: [HCIAdapterInfo]
        do throws(SystemError) {
            let control = try openControlSocket()
            if let name {
                candidates = [try info(control, index: name.index)]
            } else {
                candidates = try deviceIndices(control).map { index throws(SystemError) in
                    try info(control, index: index)
                }
            }
        } catch {
            throw BLELinuxError(error, subject: subject)
        }
        guard !candidates.isEmpty else {
            throw BLELinuxError(.noAdapter, "no Bluetooth adapter found (HCIGETDEVLIST lists none)")
        }
        let adapter: HCIAdapterInfo
        if name == nil {
            guard let first = candidates.first(where: \.isUp) else {
                let names = candidates.map(\.name.description).joined(separator: ", ")
                throw BLELinuxError(
                    .adapterDown,
                    "every adapter is down (\(names)); bring one up with 'btmgmt power on' or 'hciconfig hci0 up'"
                )
            }
            adapter = first
        } else {
            adapter = candidates[0]
        }
        if requireUp, !adapter.isUp {
            throw BLELinuxError(
                .adapterDown,
                "adapter \(adapter.name) is down; bring it up with 'btmgmt --index \(adapter.name.index) power on' or 'hciconfig \(adapter.name) up'"
            )
        }
        if requireDown, adapter.isUp {
            throw BLELinuxError(
                .adapterUp,
                "adapter \(adapter.name) is up, and the user channel needs it down: 'hciconfig \(adapter.name) down' (and stop bluetoothd from powering it: systemctl stop bluetooth)"
            )
        }
        return adapter
    }

    static func openControlSocket() throws(SystemError) -> OwnedDescriptor {
        try OwnedDescriptor.socket(domain: AF_BLUETOOTH, type: CInt(SOCK_RAW.rawValue), protocol: BTPROTO_HCI)
    }

    /// `HCIGETDEVLIST`: the indices of every adapter.
    static func deviceIndices(_ control: borrowing OwnedDescriptor) throws(SystemError) -> [UInt16] {
        let maximum = Int(HCI_MAX_DEV)
        let headerSize = 4
        let entrySize = MemoryLayout<hci_dev_req>.stride
        var buffer = [UInt8](repeating: 0, count: headerSize + maximum * entrySize)
        buffer[0] = UInt8(maximum)
        let result: Result<Void, SystemError> = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemError) in try control.ioctl(cbluez_hcigetdevlist(), buffer: bytes) }
        }
        try result.get()
        let count = min(Int(buffer[0]) | Int(buffer[1]) << 8, maximum)
        return (0..<count).map { entry in
            let offset = headerSize + entry * entrySize
            return UInt16(buffer[offset]) | UInt16(buffer[offset + 1]) << 8
        }
    }

    /// `HCIGETDEVINFO` for one adapter.
    static func info(_ control: borrowing OwnedDescriptor, index: UInt16) throws(SystemError) -> HCIAdapterInfo {
        var info = hci_dev_info()
        info.dev_id = index
        try control.ioctl(cbluez_hcigetdevinfo(), &info)
        let wire = withUnsafeBytes(of: info.bdaddr) { Array($0) }
        return HCIAdapterInfo(
            name: HCIAdapterName(index: index),
            address: BluetoothAddress(wireBytes: wire, type: .public),
            isUp: info.flags & (1 << UInt32(HCI_UP)) != 0,
            flags: info.flags
        )
    }
}

extension HCIAdapters {
    /// Powers the adapter on (`HCIDEVUP`), as `hciconfig hciN up` does: the kernel resets and
    /// initialises the controller. An adapter already up is left alone. Needs `CAP_NET_ADMIN`.
    public static func bringUp(_ name: HCIAdapterName) throws(BLELinuxError) {
        do throws(SystemError) {
            let control = try openControlSocket()
            do throws(SystemError) {
                try control.ioctl(cbluez_hcidevup(), value: UInt(name.index))
            } catch {
                guard error.errno == EALREADY else { throw error }
            }
        } catch {
            throw BLELinuxError(error, subject: "\(name) (HCIDEVUP)")
        }
    }

    /// Powers the adapter off and on again (`HCIDEVDOWN`, `HCIDEVUP`): every link on it ends, and the
    /// kernel resets and initialises the controller from scratch. Needs `CAP_NET_ADMIN`.
    public static func reset(_ name: HCIAdapterName) throws(BLELinuxError) {
        do throws(SystemError) {
            let control = try openControlSocket()
            try control.ioctl(cbluez_hcidevdown(), value: UInt(name.index))
        } catch {
            throw BLELinuxError(error, subject: "\(name) (HCIDEVDOWN)")
        }
        try bringUp(name)
    }
}
