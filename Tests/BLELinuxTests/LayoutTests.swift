import Testing

@testable import BLELinux

@Suite struct LayoutTests {
    @Test(arguments: CLayout.entries.map(\.name))
    func swiftSizeMatchesCSizeof(name: String) throws {
        let entry = try #require(CLayout.entries.first { $0.name == name })
        #expect(entry.swiftSize == entry.cSize, "\(name): Swift \(entry.swiftSize), C \(entry.cSize)")
    }

    @Test func kernelABISizes() {
        let sizes = Dictionary(uniqueKeysWithValues: CLayout.entries.map { ($0.name, $0.cSize) })
        // Fixed by the kernel's ABI (include/net/bluetooth/*.h): a change here breaks every syscall.
        #expect(sizes["sockaddr_l2"] == 14)
        #expect(sizes["sockaddr_hci"] == 6)
        #expect(sizes["hci_filter"] == 16)
        #expect(sizes["l2cap_conninfo"] == 6)
        #expect(sizes["bt_security"] == 2)
    }

    @Test func sockaddrL2FieldsAfterThePackedAddress() {
        #expect(CLayout.sockaddrL2CIDOffset.0 == CLayout.sockaddrL2CIDOffset.1)
        #expect(CLayout.sockaddrL2CIDOffset.0 == 10)
        #expect(CLayout.sockaddrL2TypeOffset.0 == CLayout.sockaddrL2TypeOffset.1)
        #expect(CLayout.sockaddrL2TypeOffset.0 == 12)
    }

    @Test func constantsTheKernelFixes() {
        #expect(CLayout.addressFamily == 31)
        #expect(CLayout.protocolL2CAP == 0)
        #expect(CLayout.protocolHCI == 1)
        #expect(CLayout.levelBluetooth == 274)
        #expect(CLayout.levelL2CAP == 6)
        #expect(CLayout.optionSecurity == 4)
        #expect(CLayout.optionReceiveMTU == 13)
        #expect(CLayout.optionConnectionInfo == 2)
        #expect(CLayout.optionHCIFilter == 2)
        // _IOR('H', 210, int) and _IOR('H', 211, int).
        #expect(CLayout.ioctlGetDeviceList == 0x8004_48D2)
        #expect(CLayout.ioctlGetDeviceInfo == 0x8004_48D3)
    }
}
