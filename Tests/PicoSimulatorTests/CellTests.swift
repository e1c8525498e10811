import BLETesting
import Coordination
import Foundation
import PicoSimulator
import Synchronization
import Testing

/// The simulated Pico's cell belongs to the device, as the instrument's does: `cell_on`/`cell_off` change
/// it, `on_finished:` runs after a normal end and after `Z` but not after an error, and a script goes on
/// when the host goes away.
@Suite struct CellTests {
    static let onThenFails = "e\nvar v\nstore_var v 5 ja\nset_e 200m\ncell_on\nset_e v\non_finished:\ncell_off\n\n"
    static let onAndOff = "e\ncell_on\nwait 10m\non_finished:\ncell_off\n\n"

    @Test func anErrorLeavesTheCellOnForTheNextScriptAndCellOffSwitchesItOff() {
        let changes = Mutex<[SimulatedCell]>([])
        var configuration = SimulatedPicoConfiguration.fast
        configuration.onCellChange = { cell in changes.withLock { $0.append(cell) } }
        let harness = PicoHarness(configuration: configuration)
        #expect(harness.pico.cell == SimulatedCell())
        #expect(harness.run(script: Self.onThenFails) == "e\n!4205: Line 5, Col 1\n\n")
        // The firmware stops at the error: no `on_finished:`, the cell stays on at the potential set.
        #expect(harness.pico.cell == SimulatedCell(isOn: true, potential: 0.2))
        // The next script starts with the cell as the last one left it.
        #expect(harness.run(script: "e\ncell_off\n\n") == "e\n\n")
        #expect(harness.pico.cell.isOn == false)
        #expect(
            changes.withLock { $0 }
                == [SimulatedCell(isOn: true, potential: 0.2), SimulatedCell(isOn: false, potential: 0.2)]
        )
    }

    @Test func onFinishedSwitchesTheCellOffAfterANormalEnd() {
        let harness = PicoHarness()
        #expect(harness.run(script: Self.onAndOff) == "e\n\n")
        #expect(harness.pico.cell.isOn == false)
    }

    @Test func aScriptGoesOnWhenTheHostGoesAwayAndTheNextLinkCanStopIt() {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = SystemClock()
        let first = Mutex<[UInt8]>([])
        let pico = SimulatedPico(configuration: configuration)
        pico.attach(output: { bytes in first.withLock { $0.append(contentsOf: bytes) } })
        pico.start()
        defer { pico.stop() }
        pico.receive(Array("e\ncell_on\nwait 30\non_finished:\ncell_off\n\n".utf8))
        #expect(eventuallyBlocking(.seconds(10)) { pico.isRunningScript && pico.cell.isOn })
        pico.detach()
        // No host: the script and the cell go on.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(pico.isRunningScript && pico.cell.isOn)
        let second = Mutex<[UInt8]>([])
        pico.attach(output: { bytes in second.withLock { $0.append(contentsOf: bytes) } })
        pico.receive(Array("Z\n".utf8))
        #expect(eventuallyBlocking(.seconds(10)) { !pico.isRunningScript && !pico.cell.isOn })
        #expect(String(decoding: second.withLock { $0 }, as: UTF8.self) == "Z\n\n")
    }
}
