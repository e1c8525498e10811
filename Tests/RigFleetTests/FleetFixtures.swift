import Foundation
import MethodSCRIPT
import PicoLink
import RigJournal

/// Journals with runs in them, for the forwarder's and the status side's tests.
enum FleetFixtures {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func provenance(device: String, run: Int = 1, start: Double) -> RunProvenance {
        RunProvenance(
            device: device,
            deviceRun: run,
            title: "CV.mscr",
            transport: "sim",
            scriptName: "CV.mscr",
            script: "var p\nvar c",
            scriptSHA256: String(repeating: "ab", count: 32),
            toolVersion: "hcipico test",
            startTime: start
        )
    }

    /// Package `index` of a CV: potential and current, the current NaN at index 3.
    static func package(_ index: Int, device: String, start: Double) -> PicoPackage {
        PicoPackage(
            device: device,
            run: 1,
            index: index,
            loop: 0,
            scan: 0,
            hostTime: start + Double(index) * 0.01,
            values: [
                PicoValue(variable: .appliedPotential, name: "p", value: Double(index) * 0.01),
                PicoValue(variable: .current, name: "c", value: index == 3 ? .nan : 1e-6 * Double(index)),
            ]
        )
    }
}
