internal import Foundation

/// Whether bluetoothd runs here: it then owns the kernel's keys (and its agent answers pairing), so
/// hcipico neither loads keys into the kernel nor makes the adapter bondable.
enum BluetoothDaemon {
    static var isRunning: Bool {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.contains { name in
            guard name.first?.isNumber == true,
                let command = FileManager.default.contents(atPath: "/proc/\(name)/comm")
            else { return false }
            return String(decoding: command, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                == "bluetoothd"
        }
    }
}
