import Foundation
import Testing

@testable import PicoLink

@Suite struct BackpressureTests {
    @Test func slowConsumerBoundsTheBacklogAndLosesNothing() async throws {
        let link = try await SimulatedLink.make()
        defer { link.close() }
        // 20 000 packages of (time, current) as fast as the simulator can make them.
        let script =
            "var c\nvar t\ncell_on\ntimer_start\nmeas_loop_ca p c 500m 1m 20\ntimer_get t\n"
            + "pck_start\npck_add t\npck_add c\npck_end\nendloop\non_finished:\ncell_off\n"
        let run = try await link.session.run(text: "var p\n" + script)
        try await Task.sleep(for: .milliseconds(300))  // the reader thread runs ahead meanwhile
        var indices: [Int] = []
        var ended = false
        for try await event in run.events {
            switch event {
            case .package(let package): indices.append(package.index)
            case .ended: ended = true
            default: break
            }
        }
        #expect(ended)
        #expect(indices == Array(0..<20_000))
        let peak = try #require(run.events.backlog?.peak)
        #expect(peak <= EventBacklog.limit)
    }
}
