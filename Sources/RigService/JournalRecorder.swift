import Foundation
import PicoLink
import RigCore
import RigJournal
import RigModel

/// The rig's `RunJournal` on the SQLite journal's writer; the analysis is told of each run's start,
/// packages and end as they are recorded (it keeps the points of the runs it will analyse).
struct JournalRecorder: RunJournal {
    let journal: Journal
    let writer: JournalWriter
    let analyses: RunAnalyses

    func nextRunNumber(device: String) async throws -> Int {
        try writer.nextRunNumber(device: device)
    }

    func runStarted(_ provenance: RunProvenance) async throws {
        try await writer.runStarted(provenance)
        analyses.runStarted(provenance)
    }

    func record(_ package: PicoPackage, run: UUID) throws -> JournalBackpressure? {
        let commit = try writer.enqueue(package, run: run)
        analyses.recorded(package, run: run)
        guard let commit else { return nil }
        return { [writer] in try await writer.waitForCommit(of: commit) }
    }

    func runEnded(
        _ run: UUID,
        complete: Bool,
        reason: String?,
        time: Double,
        overflowed: Int,
        cell: String?
    ) async throws {
        try await writer.runEnded(
            run,
            JournalRunEnd(complete: complete, reason: reason, time: time, overflowed: overflowed, cell: cell)
        )
        analyses.runEnded(run)
    }

    func requestChanged(_ request: RunRequest) async throws {
        try await writer.requestChanged(request)
    }

    func controlAction(_ action: ControlAction) async throws {
        try await writer.controlAction(action)
    }

    func flush() async throws {
        try await writer.flush()
    }

    func endedRequests(perDevice: Int) throws -> [RunRequest] {
        try journal.endedRequests(perDevice: perDevice)
    }
}
