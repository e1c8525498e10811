import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import RigCore
import RigModel
import Synchronization
import Testing

/// Runs asked on demand share each device's queue with its schedule: one at a time, priority first,
/// each recorded with who asked; wrong orders are refused before anything is queued.
@Suite struct RigRunRequestTests {
    typealias Supervisor = RigSupervisorTests

    static let dpv = RunOrder(
        body: .method(
            technique: "dpv",
            parameters: ["begin_potential": -0.1, "end_potential": 0.1, "step_potential": 0.01]
        )
    )

    @Test func anOnDemandDeviceRunsWhatIsAskedAndRecordsWhoAsked() async throws {
        let journal = MemoryJournal()
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: journal)
        rig.start()
        let (request, created) = try await rig.submit(Self.dpv, to: "a", by: "control token (test)")
        #expect(created && request.state == .queued && request.technique == "dpv" && request.title == "dpv")
        #expect(await eventually(Supervisor.patience) { rig.request(id: request.id)?.state == .complete })
        let run = try #require(journal.runs.first)
        #expect(run.provenance.title == "dpv" && run.provenance.scriptName == "request \(request.id)")
        #expect(run.packages.count == 21 && run.ended?.complete == true)
        let ended = try #require(rig.request(id: request.id))
        #expect(ended.runID == run.provenance.runID.uuidString.lowercased() && ended.deviceRun == 1)
        // Its record went queued → running (with the run) → complete, each a newer revision.
        let records = journal.requestRecords.filter { $0.id == request.id }
        #expect(records.map(\.state) == [.queued, .running, .complete])
        #expect(records.map(\.revision) == records.map(\.revision).sorted())
        #expect(journal.controlActions.map(\.action) == ["submit"])
        #expect(journal.controlActions.first?.actor == "control token (test)")
        // An on-demand device waits for the next request instead of finishing.
        #expect(rig.snapshots.first?.state == .idle(nextRun: nil))
        await rig.stop(reason: "stopped")
    }

    @Test func aRetryWithTheSameKeyIsTheSameRequest() async throws {
        let journal = MemoryJournal()
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: journal)
        var order = Self.dpv
        order.idempotencyKey = "sample-17"
        let first = try await rig.submit(order, to: "a", by: "t")
        let again = try await rig.submit(order, to: "a", by: "t")
        #expect(first.created && !again.created && again.request.id == first.request.id)
        #expect(try rig.requests(device: "a").count == 1)
        rig.start()
        #expect(await eventually(Supervisor.patience) { rig.request(id: first.request.id)?.state == .complete })
        let after = try await rig.submit(order, to: "a", by: "t")
        #expect(!after.created && after.request.state == .complete)
        #expect(journal.runs.count == 1 && journal.controlActions.count == 1)
        await rig.stop(reason: "stopped")
    }

    /// A rig started again keeps answering for the requests its journal holds: a submission retried
    /// with an earlier process's idempotency key is that request, and starts no run.
    @Test func aRetryAfterARestartIsTheRequestTheJournalKept() async throws {
        var kept = RunRequest(
            id: "earlier",
            device: "a",
            title: "dpv",
            script: ["var c"],
            submittedAt: 1,
            submitter: "t",
            idempotencyKey: "sample-17"
        )
        kept.state = .complete
        let journal = MemoryJournal(endedRequests: [kept])
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: journal)
        rig.start()
        #expect(rig.request(id: "earlier")?.state == .complete)
        var order = Self.dpv
        order.idempotencyKey = "sample-17"
        let again = try await rig.submit(order, to: "a", by: "t")
        #expect(!again.created && again.request.id == "earlier")
        order.idempotencyKey = "sample-18"
        #expect(try await rig.submit(order, to: "a", by: "t").created, "another key is another run")
        #expect(try rig.requests(device: "a").map(\.id).contains("earlier"))
        await rig.stop(reason: "stopped")
    }

    /// A watcher hears each change of a request's state (taken to run, started, ended), so that a
    /// follower waits for changes instead of looking on a timer; unwatched, it hears nothing more.
    @Test func aWatcherHearsEachChangeOfARequest() async throws {
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: MemoryJournal())
        let heard = Mutex<[RunRequest.State?]>([])
        let submitted = Mutex<String?>(nil)
        let token = rig.watchRequests {
            let state = submitted.withLock { $0 }.flatMap { rig.request(id: $0)?.state }
            heard.withLock { $0.append(state) }
        }
        rig.start()
        let first = try await rig.submit(Self.dpv, to: "a", by: "t").request
        submitted.withLock { $0 = first.id }
        #expect(await eventually(Supervisor.patience) { rig.request(id: first.id)?.state == .complete })
        let states = heard.withLock { $0 }
        #expect(states.count >= 3 && states.last == .complete, "\(states)")
        rig.unwatchRequests(token)
        let second = try await rig.submit(Self.dpv, to: "a", by: "t").request
        #expect(await eventually(Supervisor.patience) { rig.request(id: second.id)?.state == .complete })
        #expect(heard.withLock { $0.count } == states.count, "nothing heard once unwatched")
        await rig.stop(reason: "stopped")
    }

    @Test func wrongOrdersAreRefusedNamingWhatIsWrongAndQueueNothing() async throws {
        let journal = MemoryJournal()
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: journal)
        func refusal(_ order: RunOrder, to device: String = "a") async -> RigControlError? {
            do {
                _ = try await rig.submit(order, to: device, by: "t")
                return nil
            } catch {
                return error
            }
        }
        #expect(await refusal(Self.dpv, to: "b") == .unknownDevice("b"))
        let unknown = await refusal(RunOrder(body: .method(technique: "xyz", parameters: [:])))
        #expect({ if case .invalid("technique", _) = unknown { true } else { false } }())
        let badKey = await refusal(RunOrder(body: .method(technique: "dpv", parameters: ["e_stop": 1])))
        #expect({ if case .invalid("e_stop", _) = badKey { true } else { false } }())
        let outOfRange = await refusal(RunOrder(body: .method(technique: "dpv", parameters: ["end_potential": 9])))
        #expect({ if case .invalid("end_potential", _) = outOfRange { true } else { false } }())
        let script = await refusal(RunOrder(body: .script("var c\nmeas_loop_lsv c c 0 3 10m 100m\nendloop\n")))
        #expect({ if case .invalid("script", let message) = script { message.contains("line") } else { false } }())
        let priority = await refusal(RunOrder(body: Self.dpv.body, priority: 5000))
        #expect({ if case .invalid("priority", _) = priority { true } else { false } }())
        #expect(
            try rig.requests(device: "a").isEmpty && journal.requestRecords.isEmpty && journal.controlActions.isEmpty
        )
    }

    @Test func priorityRunsFirstAndEqualsRunInTheOrderAsked() async throws {
        let journal = MemoryJournal()
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: journal)
        // Queued before the device connects: nothing runs until it has them all.
        let low = try await rig.submit(RunOrder(body: Self.dpv.body, title: "low"), to: "a", by: "t").request
        let second = try await rig.submit(RunOrder(body: Self.dpv.body, title: "second"), to: "a", by: "t").request
        let urgent = try await rig.submit(RunOrder(body: Self.dpv.body, priority: 5, title: "urgent"), to: "a", by: "t")
        #expect(try rig.requests(device: "a").map(\.title) == ["urgent", "low", "second"])
        rig.start()
        #expect(await eventually(Supervisor.patience) { journal.runs.count == 3 && journal.runs[2].ended != nil })
        #expect(journal.runs.map(\.provenance.title) == ["urgent", "low", "second"])
        #expect([low, second, urgent.request].allSatisfy { rig.request(id: $0.id)?.state == .complete })
        await rig.stop(reason: "stopped")
    }

    @Test func aCancelledRequestNeverRunsAndAStopCancelsWhatIsQueued() async throws {
        let journal = MemoryJournal()
        let rig = Supervisor.rig([try Supervisor.device("a", .onDemand)], journal: journal)
        let first = try await rig.submit(Self.dpv, to: "a", by: "t").request
        let second = try await rig.submit(Self.dpv, to: "a", by: "t").request
        let cancelled = try await rig.cancel(request: first.id, by: "t")
        #expect(cancelled.state == .cancelled && cancelled.reason == "cancelled by t")
        await #expect(throws: RigControlError.self) { try await rig.cancel(request: first.id, by: "t") }
        await rig.stop(reason: "stopped (SIGTERM)")
        #expect(rig.request(id: second.id)?.state == .cancelled)
        #expect(rig.request(id: second.id)?.reason == "stopped (SIGTERM)")
        #expect(journal.runs.isEmpty)
        #expect(journal.requestRecords.last { $0.id == second.id }?.state == .cancelled)
        #expect(journal.controlActions.map(\.action) == ["submit", "submit", "cancel"])
        await #expect(throws: RigControlError.self) { try await rig.submit(Self.dpv, to: "a", by: "t") }
    }

    @Test func aPausedScheduleStartsNoRunButRequestsStillRun() async throws {
        let clock = ManualClock()
        let journal = MemoryJournal()
        let rig = Supervisor.rig([try Supervisor.device("a", .every(60))], journal: journal, clock: clock)
        try await rig.setSchedulePaused(true, device: "a", by: "t")
        #expect(rig.isSchedulePaused(device: "a"))
        rig.start()
        #expect(await eventually(Supervisor.patience) { rig.snapshots.first?.state == .idle(nextRun: nil) })
        #expect(journal.runs.isEmpty)
        let request = try await rig.submit(Self.dpv, to: "a", by: "t").request
        #expect(await eventually(Supervisor.patience) { rig.request(id: request.id)?.state == .complete })
        #expect(journal.runs.map(\.provenance.title) == ["dpv"])
        let start = clock.wallTime
        try await rig.setSchedulePaused(false, device: "a", by: "t")
        #expect(await eventually(Supervisor.patience) { journal.runs.count == 2 && journal.runs[1].ended != nil })
        #expect(journal.runs[1].provenance.title == "CV.mscr" && journal.runs[1].provenance.startTime == start)
        #expect(journal.controlActions.map(\.action) == ["pause", "submit", "resume"])
        await rig.stop(reason: "stopped")
    }

    @Test func anAbortEndsTheRunInProgressIncompleteAndSaysWho() async throws {
        var configuration = SimulatedPicoConfiguration()
        configuration.abortStopsScript = true
        let journal = MemoryJournal()
        let rig = Supervisor.rig(
            [try Supervisor.device("a", .onDemand)],
            connector: SimulatorConnector(configuration: configuration),
            journal: journal
        )
        rig.start()
        await #expect(throws: RigControlError.conflict("a has no run in progress")) {
            try await rig.abort(device: "a", by: "t")
        }
        let request = try await rig.submit(RunOrder(body: .script(Supervisor.ca)), to: "a", by: "t").request
        #expect(await eventually(Supervisor.patience) { (journal.runs.first?.packages.count ?? 0) >= 3 })
        let aborted = try await rig.abort(device: "a", by: "control token (test)")
        #expect(aborted?.id == request.id)
        #expect(await eventually(Supervisor.patience) { rig.request(id: request.id)?.state == .incomplete })
        #expect(rig.request(id: request.id)?.reason == "aborted by control token (test); script aborted by Z")
        #expect(journal.runs.first?.ended?.complete == false)
        #expect(journal.controlActions.map(\.action) == ["submit", "abort"])
        await rig.stop(reason: "stopped")
    }
}
