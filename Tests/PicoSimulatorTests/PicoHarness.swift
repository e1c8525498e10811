import BLETesting
import Foundation
import PicoSimulator
import Synchronization

/// Drives a `SimulatedPico` the way a host would and records what it sends back.
final class PicoHarness: Sendable {
    final class Recorder: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let notificationSizes = Mutex<[Int]>([])
        let modemOutReports = Mutex<[Bool]>([])
    }

    let recorder = Recorder()
    let pico: SimulatedPico

    init(configuration: SimulatedPicoConfiguration = .fast) {
        let recorder = self.recorder
        pico = SimulatedPico(
            configuration: configuration,
            output: { payload in
                recorder.bytes.withLock { $0.append(contentsOf: payload) }
                recorder.notificationSizes.withLock { $0.append(payload.count) }
            },
            modemOut: { space in recorder.modemOutReports.withLock { $0.append(space) } }
        )
        pico.start()
    }

    deinit { pico.stop() }

    var text: String { String(decoding: recorder.bytes.withLock { $0 }, as: UTF8.self) }

    /// Waits until `condition` holds for the output text, or `timeout` seconds pass.
    func wait(timeout: Double = 20, until condition: (String) -> Bool) -> Bool {
        eventuallyBlocking(.milliseconds(Int(timeout * 1000))) { condition(text) }
    }

    /// Sends `input` and waits for a reply ending in `terminator` after what was already there.
    func exchange(_ input: String, terminator: String = "\n", timeout: Double = 20) -> String {
        let before = recorder.bytes.withLock { $0.count }
        pico.receive(Array(input.utf8))
        _ = wait(timeout: timeout) { text in
            let reply = text.utf8.dropFirst(before)
            return String(decoding: reply, as: UTF8.self).hasSuffix(terminator) && !pico.isRunningScript
        }
        return String(decoding: Array(recorder.bytes.withLock { $0 }.dropFirst(before)), as: UTF8.self)
    }

    /// Runs a script text (`e` … empty line) and returns its whole reply (`e` … empty line).
    func run(script: String, timeout: Double = 20) -> String {
        exchange(script, terminator: "\n\n", timeout: timeout)
    }
}

/// The `Examples/` folder of this package, found from this file's location.
enum ExampleScripts {
    static func text(_ name: String) throws -> String {
        let here = URL(fileURLWithPath: #filePath)
        let url = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .ascii)
    }
}
