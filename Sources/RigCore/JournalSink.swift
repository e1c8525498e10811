import Foundation
import PicoLink

/// The rig's journal as a run's sink: each package is queued for the journal's next commit, and the
/// recording waits while the journal has fallen behind (`PacedSink`). The run's start and end rows are
/// written by `RunRecording`, which knows the provenance, the request and when the run ended.
///
/// A journal that fails is a sink failure to the recorder (it ends the run and leaves the cell safe);
/// `failure` keeps the journal's own error, which ends the rig.
final class JournalSink: PacedSink {
    private let journal: any RunJournal
    private let run: UUID
    /// The wait the journal asked for with the last package, made before the next.
    private var backpressure: JournalBackpressure?
    /// The journal's error, once it failed.
    private(set) var failure: (any Error)?

    init(journal: any RunJournal, run: UUID) {
        self.journal = journal
        self.run = run
    }

    func begin(_ run: RunInfo) throws(SinkError) {}

    func write(_ package: PicoPackage) throws(SinkError) {
        do {
            backpressure = try journal.record(package, run: run)
        } catch {
            throw failed(error)
        }
    }

    func pace() async throws(SinkError) {
        guard let wait = backpressure else { return }
        backpressure = nil
        do {
            try await wait()
        } catch {
            throw failed(error)
        }
    }

    func finish(_ end: RunEnd) throws(SinkError) {}

    private func failed(_ error: any Error) -> SinkError {
        failure = failure ?? error
        return SinkError(path: "the journal", operation: "record", errno: EIO)
    }
}
