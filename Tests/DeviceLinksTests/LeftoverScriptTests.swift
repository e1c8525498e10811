import DeviceLinks
import DeviceRuns
import Foundation
import PicoLink
import Testing

/// A script left running on a device whose host went away is found by the next connection, before
/// anything else, stopped, and the cell switched off; the run that follows says so.
@Suite struct LeftoverScriptTests {
    /// A chronoamperometry of 5 min in real time: still running when its host goes away and the next
    /// connection comes, however slow a loaded machine makes the steps between (the takeover stops it).
    static let long =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_ca p c 200m 10m 300\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "on_finished:\n  cell_off\n\n"

    @Test func aSecondConnectionFindsTheScriptStopsItAndSwitchesTheCellOff() async throws {
        let log = RecordedLog()
        let opener = LinkOpener(logger: log.logger())
        let options = LinkOpener.Options(simulator: SimulatorSettings(trace: true))
        let first = try await opener.openPico(.simulator(.pico), options: options)
        let run = try await first.session.run(text: Self.long)
        var packages = 0
        for try await event in run.events {
            if case .package = event { packages += 1 }
            if packages == 5 { break }
        }
        // The host goes away without a word: no `Z`, the device keeps measuring.
        await first.close()
        let second = try await opener.openPico(.simulator(.pico), options: options)
        let again = second.session
        // As a program's run takes the device over (DeviceRuns): the script found is said on the logger.
        let taken = try await second.takeOver(askingSerial: true, security: nil, logger: log.logger())
        let (version, leftover) = (taken.version, taken.leftover)
        #expect(version.firmware.hasPrefix("espico"))
        let found = try #require(leftover)
        #expect(log.messages(atLeast: .notice).contains(found.description))
        #expect(found.evidence == "its output was arriving")
        #expect(found.aborted)
        guard case .offConfirmed = found.cell else {
            Issue.record("cell: \(found.cell)")
            return
        }
        #expect(
            log.messages(atLeast: .notice).filter { $0.contains("sim: cell") }.last == "sim: cell off",
            "\(log.messages(atLeast: .notice))"
        )
        // Idle now: a third look finds nothing.
        let (_, none) = try await again.takeOver()
        #expect(none == nil)
        await second.close()
    }

    @Test func anIdleDeviceIsTakenOverWithOneVersionRequest() async throws {
        let log = RecordedLog()
        let opener = LinkOpener(logger: log.logger())
        let options = LinkOpener.Options(simulator: SimulatorSettings(fast: true, trace: true))
        let opened = try await opener.openPico(.simulator(.pico), options: options)
        let (_, leftover) = try await opened.session.takeOver()
        #expect(leftover == nil)
        // `t` only: no `Z`, no `cell_off` (0x0009 is the VSP RX value).
        let writes = log.messages(atLeast: .notice).filter { $0.hasPrefix("sim: write 0x0009") }
        #expect(writes == ["sim: write 0x0009 0a", "sim: write 0x0009 740a"], "\(writes)")
        await opened.close()
    }
}
