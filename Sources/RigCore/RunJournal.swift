public import Foundation
public import PicoLink
public import RigModel

/// Where a rig records its runs: the SQLite journal (through the CLI's adapter) or a test double. A
/// call that throws means the journal can no longer record; the rig then stops (see `Rig.failure`).
public protocol RunJournal: Sendable {
    /// The number of `device`'s next run: unique among the device's runs in this journal, whatever
    /// restarts and reloads came between.
    func nextRunNumber(device: String) async throws -> Int
    /// A run starts, with its provenance; it stays `running` until `runEnded`.
    func runStarted(_ provenance: RunProvenance) async throws
    /// One package of a started run, queued without waiting. Returns nil, or — when the journal has
    /// fallen behind — a wait to make before the next package (the journal's backpressure).
    func record(_ package: PicoPackage, run: UUID) throws -> JournalBackpressure?
    /// The run ended: complete, or incomplete with its reason; `overflowed` packages never reached here;
    /// `cell` says what became of the cell after a run that did not end normally.
    func runEnded(
        _ run: UUID,
        complete: Bool,
        reason: String?,
        time: Double,
        overflowed: Int,
        cell: String?
    )
        async throws
    /// A run request as it now stands (queued, running, ended or cancelled): its row, kept up to date.
    func requestChanged(_ request: RunRequest) async throws
    /// A control action, for the record: who did what to which device, when.
    func controlAction(_ action: ControlAction) async throws
    /// Returns once everything recorded so far is durable (committed).
    func flush() async throws
    /// The newest `perDevice` requests of each device that ended before this process, oldest first.
    func endedRequests(perDevice: Int) throws -> [RunRequest]
}

/// A wait a journal that has fallen behind asks of the recording before its next package; it throws
/// when the journal failed meanwhile.
public typealias JournalBackpressure = @Sendable () async throws -> Void

extension RunJournal {
    /// A journal that keeps no requests.
    public func endedRequests(perDevice: Int) throws -> [RunRequest] { [] }
}
