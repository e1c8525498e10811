import BLEHost
import BLELinux
import BLEWire
import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import Logging
import MethodSCRIPT
import PicoAnalysis
import PicoLink
import RunResults

// The Swift examples of the README, Documentation/Internals.md and the libraries' DocC pages, as
// written there (`Tools/check-doc-examples.py` checks that they stand here unchanged): compiled with
// the tests, never run (they need a radio, a Pico or data). Names an example leaves to the reader are
// its function's parameters.

/// README.md
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

/// README.md
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

/// Documentation/Internals.md
func internalsKernelPath(connectionUpdate: [UInt8]) async throws {
    // ATT over the kernel's L2CAP LE socket (PSM 0, CID 4); cancelling the task cancels the connect.
    let peer = try BluetoothAddress(parsing: "C0:11:22:33:44:55", type: .random)
    let att = try await L2CAPATTSocket.connect(to: peer, adapter: nil, security: .medium, timeout: .seconds(20))
    try att.start(receive: { pdu in /* one ATT PDU, on the link's reader thread */ }, closed: { reason in })
    try att.send([0x02, 0x05, 0x02])  // Exchange MTU Request
    // att.connectionHandle is the HCI handle for raw commands on this link.

    // Raw HCI commands and events on an adapter the kernel keeps (needs CAP_NET_RAW).
    let hci = try HCISocket.open(nil)  // nil: the first adapter that is up
    let answer = try await hci.command(opcode: 0x2013, parameters: connectionUpdate, timeout: .seconds(2))
    for await event in hci.events() where event.leSubevent == HCIEventPacket.LESubevent.connectionUpdateComplete {
        // event.parameters: the raw LE Meta parameters, subevent code first
    }

    // LE scanning on that socket, extended or legacy from the adapter's bitmap; disabled again on return,
    // also when the task is cancelled. Reports merge into the same DiscoveredDevice model HCIHost's fill.
    var table = DiscoveryTable(filter: .lairdVSP)
    let outcome = try await KernelScanner(socket: hci).scan(ScanParameters(active: true), for: .seconds(5)) {
        table.add($0)
        return true  // false stops the scan
    }

    // The user-space host's transports: HCI_CHANNEL_USER, H4 over a UART or TCP.
    let transport = try TransportSpec(parsing: "tcp:127.0.0.1:9000").openHCITransport()
    _ = answer
    _ = outcome
    _ = transport
}

/// Documentation/Internals.md
func internalsOwnHost() async throws {
    let transport = try TransportSpec(parsing: "tcp:127.0.0.1:9000").openHCITransport()
    let writer = try BTSnoopWriter(path: "run.btsnoop")  // optional capture, Wireshark / btmon -r
    let host = HCIHost(transport: BTSnoopCaptureTransport(wrapping: transport, into: writer))
    try await host.start()
    let pico = try await host.scan(timeout: .seconds(10)) { $0.name == "PicoSim" }
    let link = try await host.connect(to: pico.address)
    let gatt = try await GATTClient.connect(transport: link.att, mtu: 247)
    for await event in link.events { print(event) }  // parameter, data length, PHY, disconnect
    _ = gatt
}

/// Sources/DeviceLinks/DeviceLinks.docc/DeviceLinks.md
func deviceLinksOverview() async throws {
    let opener = LinkOpener(logger: Logger(label: "lab.links"))
    let opened = try await opener.openPico(.simulator(.pico))
    print(try await opened.session.version())
    await opened.close()
}

/// Sources/DeviceRuns/DeviceRuns.docc/DeviceRuns.md
func deviceRunsOverview(myDisplay: any RunDisplay) async throws {
    let request = LinkRequest(
        target: .simulator(.pico),
        options: LinkOpener.Options(),
        logger: Logger(label: "lab.runs")
    )
    let run = ScriptRun(
        link: request,
        tuning: LinkTuningPlan(request: nil, stats: false),
        script: try PicoScript(try Method(technique: .cv).script()),
        title: "cv",
        outputs: RunOutputs(csv: "cv.csv", overwrite: false),
        analysis: AnalysisSettings(),
        timing: false,
        limits: RunLimits(maximumCurrent: 1e-3),
        toolVersion: "lab 1.0",
        stop: .shared
    )
    switch await run.perform(display: myDisplay) {
    case .complete: print("recorded")
    case let other: print("not complete: \(other)")
    }
}

/// Sources/PicoAnalysis/PicoAnalysis.docc/PicoAnalysis.md
func picoAnalysisOverview(spectrum: ImpedanceSpectrum, e: [Double], i: [Double]) async throws {
    let circuit = try EquivalentCircuit("R(RC)")
    let fit = try CircuitFitter.fit(circuit, to: spectrum)
    print(zip(circuit.parameters.map(\.name), fit.values))
    let peaks = PeakAnalysis.peaks(in: Voltammogram(potentials: e, currents: i), scanRate: 0.1)
    _ = peaks
}
