import BLEHost
import BLELinux
import BLEWire
import Foundation
import Synchronization
import Testing

/// The bond store: one 0600 file per controller, bonds replaced by peer, refused when others can read it.
@Suite struct BondStoreTests {
    static let controller = BluetoothAddress("00:00:5E:00:53:01")!
    static let peer = BluetoothAddress("F0:11:22:33:44:55", type: .random)!

    static func bond(_ key: UInt8, authenticated: Bool = false) -> SecurityBond {
        SecurityBond(
            peer: peer,
            longTermKey: [UInt8](repeating: key, count: 16),
            ediv: 0x1234,
            rand: 0xFEDC_BA98_7654_3210,
            keySize: 16,
            authenticated: authenticated,
            secureConnections: false,
            identityAddress: BluetoothAddress("F0:11:22:33:44:56", type: .random),
            identityResolvingKey: [UInt8](repeating: 7, count: 16)
        )
    }

    func withFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bonds-\(UUID())").path + "/nested"
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        try body(folder)
    }

    @Test func aDeviceIsForgottenInEveryControllersFileAndListedWithoutItsKeys() throws {
        try withFolder { folder in
            let other = BluetoothAddress("00:00:5E:00:53:02")!
            for controller in [Self.controller, other] {
                try BondStore(directory: folder, controller: controller).save(Self.bond(1))
            }
            let line = Self.bond(1).listing(controller: Self.controller, json: false)
            #expect(line.hasPrefix("00:00:5E:00:53:01  F0:11:22:33:44:55  "))
            #expect(line.hasSuffix("  identity F0:11:22:33:44:56"))
            let json = Self.bond(1).listing(controller: Self.controller, json: true)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(object["device"] as? String == "F0:11:22:33:44:55" && object["key_size"] as? Int == 16)
            #expect(!json.contains("0101") && !line.contains("0101"), "no key is ever listed")
            #expect(try BondStore.forget(Self.peer, in: folder) == 2)
            #expect(try BondStore.forget(Self.peer, in: folder) == 0)
        }
    }

    @Test func aBondIsKeptReplacedFoundByIdentityAndRemoved() throws {
        try withFolder { folder in
            let store = BondStore(directory: folder, controller: Self.controller)
            #expect(try store.load().isEmpty)
            try store.save(Self.bond(1))
            try store.save(Self.bond(2, authenticated: true))
            let bonds = try store.load()
            #expect(bonds == [Self.bond(2, authenticated: true)])
            #expect(store.path.hasSuffix("/00-00-5E-00-53-01.json"))
            let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
            let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
            #expect(folderMode == 0o700)
            #expect(try store.bond(for: BluetoothAddress("F0:11:22:33:44:56", type: .random)!) != nil)
            #expect(try store.remove(Self.peer))
            #expect(try !store.remove(Self.peer))
            #expect(try store.load().isEmpty)
        }
    }

    /// Every controller's file in a folder is a store; other files are not.
    @Test func everyControllersFileInTheFolderIsFound() throws {
        try withFolder { folder in
            try BondStore(directory: folder, controller: Self.controller).save(Self.bond(1))
            let second = BluetoothAddress("00:00:5E:00:53:02")!
            try BondStore(directory: folder, controller: second).save(Self.bond(2))
            _ = FileManager.default.createFile(atPath: folder + "/notes.txt", contents: Data())
            _ = FileManager.default.createFile(atPath: folder + "/not-an-address.json", contents: Data())
            #expect(BondStore.all(in: folder).map(\.controller) == [Self.controller, second])
            #expect(BondStore.all(in: folder + "/missing").isEmpty)
        }
    }

    /// A rig pairing two devices on one controller, or two processes on one adapter, each read the file,
    /// change it and write it back: no bond saved at the same time as another may be lost.
    @Test func bondsSavedAtOnceAreAllKept() throws {
        try withFolder { folder in
            let count = 64
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: count) { index in
                var bond = Self.bond(UInt8(index))
                bond.peer = BluetoothAddress(String(format: "F0:11:22:33:%02X:%02X", index / 256, index % 256))!
                bond.identityAddress = nil
                do {
                    try BondStore(directory: folder, controller: Self.controller).save(bond)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let kept = try BondStore(directory: folder, controller: Self.controller).load()
            #expect(kept.count == count, "\(kept.count) of \(count) bonds kept")
            #expect(Set(kept.map(\.peer.value)).count == count)
        }
    }

    @Test func aPublicIdentityStaysPublicAndANewAddressWithTheSameIdentityReplacesTheBond() throws {
        try withFolder { folder in
            let store = BondStore(directory: folder, controller: Self.controller)
            var bond = Self.bond(1)
            bond.peer = BluetoothAddress("F0:11:22:33:44:57", type: .publicIdentity)!
            try store.save(bond)
            #expect(try store.load().map(\.peer.type) == [.public], "reloaded as the kind of address it is")
            var again = Self.bond(2)
            again.peer = BluetoothAddress("4A:11:22:33:44:58", type: .random)!
            try store.save(again)
            #expect(try store.load() == [again], "same identity address: the earlier bond is replaced")
        }
    }

    @Test func aStoreOthersCanReadIsRefusedAndAMalformedOneIsNamed() throws {
        try withFolder { folder in
            let store = BondStore(directory: folder, controller: Self.controller)
            try store.save(Self.bond(3))
            chmod(store.path, 0o640)
            #expect(throws: BondStore.Failure.self) { try store.load() }
            do throws(BondStore.Failure) {
                _ = try store.load()
            } catch {
                #expect(error.description.contains("readable by group or others (mode 640)"))
                #expect(error.description.contains("chmod 600"))
            }
            chmod(store.path, 0o600)
            try Data("{\"format\":\"hcipico-bonds\",\"version\":1,\"bonds\":[{\"peer\":\"xx\"}]}".utf8)
                .write(to: URL(fileURLWithPath: store.path))
            chmod(store.path, 0o600)
            do throws(BondStore.Failure) {
                _ = try store.load()
                Issue.record("a malformed store loaded")
            } catch {
                #expect(error.description.hasSuffix("bond 1 is incomplete or malformed"))
            }
        }
    }
}
