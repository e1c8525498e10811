import BLEHost
import BLELinux
import PicoLink
import PicoSimulator

/// A simulated EmStat Pico (virtual clock) on a socketpair and the session to it, as the e2e suites
/// drive it, and the chronoamperometry they run.
struct BenchPico {
    let peripheral: SimulatedPicoPeripheral
    let session: PicoSession

    static func open(configuration: SimulatedPicoConfiguration = .fast) async throws -> BenchPico {
        let (hostEnd, deviceEnd) = try UnixSocketATTTransport.makePair()
        let peripheral = SimulatedPicoPeripheral(transport: deviceEnd, configuration: configuration)
        try peripheral.start()
        let client = try await GATTClient.connect(transport: hostEnd)
        return BenchPico(peripheral: peripheral, session: try await PicoSession.open(client: client, name: "bench"))
    }

    /// 1 ms CA for `seconds` of virtual time: 1000 × `seconds` packages of (time from `timer_get`,
    /// current), which `SequenceCheckSink(interval: 1e-3)` checks.
    static func chronoamperometry(seconds: Int, intervalMilliseconds: Int = 1) throws -> PicoScript {
        try PicoScript(
            "var p\nvar c\nvar t\nset_pgstat_mode 3\nset_autoranging ba 100n 5m\ncell_on\ntimer_start\n"
                + "meas_loop_ca p c 500m \(intervalMilliseconds)m \(seconds)\ntimer_get t\npck_start\npck_add t\npck_add c\npck_end\nendloop\n"
                + "on_finished:\ncell_off\n"
        )
    }

    func close() { peripheral.close() }
}
