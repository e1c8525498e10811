import BLELinux
import BLEWire
import DeviceLinks
import Foundation
import Logging
import PicoLink

// The README's embedding examples, as written there (`Tools/check-readme-examples.py` checks that they
// stand here unchanged): compiled with the tests, never run (they need a Pico in range).

/// "Embedding `PicoLink`": open one Pico and record a run into files.
func readmeOpenOnePico(scriptText: String) async throws {
    let opener = LinkOpener(logger: Logger(label: "lab.links"))
    let address = try BluetoothAddress(parsing: "F0:11:22:33:44:55", type: .random)
    let target = DeviceTarget.radio(address, .kernel(adapter: nil))  // or .simulator(.pico)
    let opened = try await opener.openPico(target)  // the link and its EmStat Pico session
    let pico = opened.session
    print(try await pico.version())

    let run = try await pico.run(try PicoScript(scriptText), title: "cv")
    let recorder = RunRecorder(sinks: [try CSVSink(path: "cv.csv"), SVGSink(path: "cv.svg")])
    let end = try await recorder.record(run) { event in
        if case .package(let package) = event { print(package.index, package["da"] ?? .nan, package["ba"] ?? .nan) }
    }
    print(end.complete ? "done" : "cut short: \(end.reason ?? "")")
    await opened.close()
}

/// "Embedding `PicoLink`": several Picos kept connected by a `DeviceManager`.
func readmeDeviceManager(scriptText: String, opener: LinkOpener) async throws {
    let manager = DeviceManager()
    for (name, address) in [("pico-1", "F0:11:22:33:44:55"), ("pico-2", "F0:11:22:33:44:66")] {
        let device = try manager.add(name, reconnect: ReconnectPolicy()) {
            let radio = try BluetoothAddress(parsing: address, type: .random)
            return try await opener.open(.radio(radio, .kernel(adapter: nil))).connection  // closed when removed
        }
        Task { for await status in device.statuses { print(name, status) } }  // connecting, connected, …
    }
    _ = await manager.connectAll()
    let csv = try CSVSink(path: "pico-1.csv")
    let recorded = try await manager["pico-1"]!.record(try PicoScript(scriptText), into: [csv])
    print(recorded.complete ? "done" : "cut short: \(recorded.reason ?? "")")
    await manager.removeAll()
}
