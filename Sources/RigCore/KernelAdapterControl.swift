import BLELinux

/// The kernel's adapters for a rig's `AdapterKeeper`: `HCIGETDEVLIST`/`HCIGETDEVINFO` to see them,
/// `HCIDEVUP`/`HCIDEVDOWN` to bring one back (`CAP_NET_ADMIN`).
struct KernelAdapterControl: AdapterControl {
    func adapters() throws -> [AdapterStatus] {
        try HCIAdapters.list().map { AdapterStatus(name: "\($0.name)", address: "\($0.address)", isUp: $0.isUp) }
    }

    func bringUp(_ name: String) throws {
        try HCIAdapters.bringUp(HCIAdapterName(parsing: name))
    }

    func reset(_ name: String) throws {
        try HCIAdapters.reset(HCIAdapterName(parsing: name))
    }
}
