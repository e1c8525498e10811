import Foundation
import PicoLink
import RigCore
import RigJournal

/// The rig's `RunJournal` on the SQLite journal's writer.
struct JournalRecorder: RunJournal {
    let writer: JournalWriter
    /// Told when a run's end is committed (the analysis waits for it).
    var onRunEnded: @Sendable (UUID) -> Void = { _ in }

    func nextRunNumber(device: String) async throws -> Int {
        try writer.nextRunNumber(device: device)
    }

    func runStarted(_ provenance: RunProvenance) async throws {
        try await writer.runStarted(provenance)
    }

    func record(_ package: PicoPackage, run: UUID) async throws {
        try await writer.record(package, run: run)
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
        onRunEnded(run)
    }

    func flush() async throws {
        try await writer.flush()
    }
}
