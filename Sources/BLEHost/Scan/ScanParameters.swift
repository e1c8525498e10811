public import BLEWire

/// How to scan, the same for the kernel's raw HCI socket and for `HCIHost`: active or passive,
/// interval and window (0.625 ms units, 0x0004…0x4000, window ≤ interval), duplicate filtering in
/// the controller.
public struct ScanParameters: Sendable, Hashable {
    /// Active scanning sends scan requests, so scan responses (often the name) arrive too.
    public var active: Bool
    /// The time from the start of one scan window to the next, in 0.625 ms units.
    public var interval: UInt16
    /// How long the controller listens in each interval, in 0.625 ms units; equal to `interval`, it
    /// scans continuously.
    public var window: UInt16
    /// The controller reports each advertiser once per event type instead of every advertisement.
    public var filterDuplicates: Bool

    /// By default: active, continuous 60 ms scanning, duplicates filtered.
    public init(active: Bool = true, interval: UInt16 = 0x0060, window: UInt16 = 0x0060, filterDuplicates: Bool = true)
    {
        self.active = active
        self.interval = interval
        self.window = window
        self.filterDuplicates = filterDuplicates
    }

    /// The commands that set up, start and stop such a scan: the extended ones (LE 1M only) or the
    /// legacy ones. `ownAddressType` is what scan requests carry (0 public, 1 random).
    public func commands(extended: Bool, ownAddressType: UInt8) -> ScanCommands {
        let scanType: UInt8 = active ? 1 : 0
        let duplicates: UInt8 = filterDuplicates ? 1 : 0
        if extended {
            let phy = HCILEExtendedScanPHYParameters(scanType: scanType, scanInterval: interval, scanWindow: window)
            return ScanCommands(
                setParameters: HCILESetExtendedScanParameters(
                    ownAddressType: ownAddressType,
                    scanningFilterPolicy: 0,
                    scanningPHYs: 0x01,
                    phys: [phy]
                ),
                enable: HCILESetExtendedScanEnable(enable: 1, filterDuplicates: duplicates, duration: 0, period: 0),
                disable: HCILESetExtendedScanEnable(enable: 0, filterDuplicates: 0, duration: 0, period: 0)
            )
        }
        return ScanCommands(
            setParameters: HCILESetScanParameters(
                leScanType: scanType,
                leScanInterval: interval,
                leScanWindow: window,
                ownAddressType: ownAddressType,
                scanningFilterPolicy: 0
            ),
            enable: HCILESetScanEnable(leScanEnable: 1, filterDuplicates: duplicates),
            disable: HCILESetScanEnable(leScanEnable: 0, filterDuplicates: 0)
        )
    }
}

/// The three commands of one scan, legacy or extended.
public struct ScanCommands: Sendable {
    /// LE Set Scan Parameters, or LE Set Extended Scan Parameters.
    public let setParameters: any HCICommandPacket
    /// LE Set Scan Enable, or LE Set Extended Scan Enable, turning scanning on.
    public let enable: any HCICommandPacket
    /// The same command turning scanning off.
    public let disable: any HCICommandPacket

    /// True when these are the extended scanning commands.
    public var extended: Bool { type(of: enable).opcode == HCILESetExtendedScanEnable.opcode }

    /// True when `commands` (a controller's bitmap) lists both extended scanning commands.
    public static func extendedSupported(by commands: HCISupportedCommands) -> Bool {
        commands.supports(HCILESetExtendedScanParameters.self) && commands.supports(HCILESetExtendedScanEnable.self)
    }
}
