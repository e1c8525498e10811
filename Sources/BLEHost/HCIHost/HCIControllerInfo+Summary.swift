import BLEWire

extension HCIControllerInfo {
    /// Five lines about the controller `transport` names: its address, HCI version and manufacturer, own
    /// address, ACL buffers, and which scanning and connecting commands it has.
    public func summary(transport: String) -> String {
        let source =
            switch bufferSource {
            case .leReadBufferSizeV2: "LE Read Buffer Size v2"
            case .leReadBufferSizeV1: "LE Read Buffer Size"
            case .sharedReadBufferSize: "shared with BR/EDR"
            }
        let digits = String(manufacturer, radix: 16, uppercase: true)
        let company = AssignedNumbers.company(manufacturer).map { " (\($0))" } ?? ""
        return [
            "\(transport)  \(publicAddress)",
            "  HCI version \(Self.coreVersion(hciVersion)), manufacturer 0x"
                + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + company,
            "  own address \(ownAddress) (\(ownAddress.type == .random ? "static random" : "public"))",
            "  ACL buffers \(aclPacketCount) × \(aclDataLength) bytes (\(source))",
            "  scanning \(extendedScanning ? "extended" : "legacy"), connecting \(extendedConnect ? "extended" : "legacy")",
        ].joined(separator: "\n")
    }

    /// The Core specification an HCI version stands for (Assigned Numbers §2.1): `5.4 (13)`, or the bare
    /// number.
    public static func coreVersion(_ version: UInt8) -> String {
        let names = [
            "1.0b", "1.1", "1.2", "2.0", "2.1", "3.0", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0",
        ]
        return Int(version) < names.count ? "\(names[Int(version)]) (\(version))" : "\(version)"
    }
}
