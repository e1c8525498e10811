public import BLEWire
internal import Foundation

extension BondStore {
    /// Every controller's store in `directory` (a file `AA-BB-CC-DD-EE-FF.json` each), in name order.
    public static func all(in directory: String) -> [BondStore] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasSuffix(".json") else { return nil }
            let stem = name.dropLast(5).replacingOccurrences(of: "-", with: ":")
            return BluetoothAddress(stem).map { BondStore(directory: directory, controller: $0) }
        }
    }

    /// Forgets `peer` in every controller's file in `directory`; returns how many files held it. A file
    /// that cannot be rewritten stops it there, with the bond still in that file and the ones after it.
    public static func forget(_ peer: BluetoothAddress, in directory: String) throws(Failure) -> Int {
        var removed = 0
        for store in all(in: directory) where try store.remove(peer) { removed += 1 }
        return removed
    }

    /// Forgets `peer`'s keys in every kernel adapter, unless bluetoothd runs (it keeps the kernel's keys
    /// and files of its own); returns in how many adapters it had keys.
    public static func forgetInKernel(_ peer: BluetoothAddress) async -> Int {
        guard !KernelPairingAgent.bluetoothDaemonRuns, let adapters = try? HCIAdapters.list() else { return 0 }
        var forgotten = 0
        for adapter in adapters {
            if (try? await KernelPairingAgent.unpair(peer, index: adapter.name.index)) == true { forgotten += 1 }
        }
        return forgotten
    }
}
