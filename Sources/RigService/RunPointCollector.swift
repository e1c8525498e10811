public import Foundation
public import PicoAnalysis
public import PicoLink
import RunResults
import Synchronization

/// The points of the rig's running runs that will be analysed, kept as they are recorded, so that a run's
/// analysis need not read them back from the journal. Bounded: a run past `rowLimit` packages, or any run
/// while the runs kept and those waiting for their analysis hold `totalRowLimit` packages, is let go (its
/// analysis reads the journal, as for a run an earlier process recorded).
public final class RunPointCollector: Sendable {
    /// Packages one run may keep.
    public let rowLimit: Int
    /// Packages all runs kept or waiting may hold together.
    public let totalRowLimit: Int
    private let state = Mutex(State())

    private struct State {
        /// The runs being kept (as many as devices: found by a look along them, without hashing).
        var running: [KeptRun] = []
        /// Packages kept by runs, running or ended and not yet analysed.
        var rows = 0
        /// Packages kept, in all (a figure for the log).
        var kept = 0
    }

    /// A run's points.
    private struct KeptRun {
        let run: UUID
        var points: PointColumns
    }

    public init(rowLimit: Int = 100_000, totalRowLimit: Int = 1_000_000) {
        self.rowLimit = rowLimit
        self.totalRowLimit = totalRowLimit
    }

    /// Keeps the points of run `run` (the device's run `deviceRun`) from now on.
    public func begin(_ run: UUID, deviceRun: Int) {
        state.withLock { $0.running.append(KeptRun(run: run, points: PointColumns(deviceRun: deviceRun))) }
    }

    /// `package`, recorded for `run`: kept when the run's points are.
    public func record(_ package: PicoPackage, run: UUID) {
        state.withLock { state in
            guard let at = state.running.firstIndex(where: { $0.run == run }) else { return }
            let rows = state.running[at].points.rows
            guard rows < rowLimit, state.rows < totalRowLimit else {
                state.rows -= rows
                state.running.remove(at: at)
                return
            }
            state.running[at].points.add(package)
            state.rows += 1
            state.kept += 1
        }
    }

    /// The points of `run`, which ended, when they were kept whole; they stay counted against the total
    /// until `released(rows:)`.
    public func ended(_ run: UUID) -> PointTable? {
        state.withLock { state in
            guard let at = state.running.firstIndex(where: { $0.run == run }) else { return nil }
            return state.running.remove(at: at).points.table
        }
    }

    /// The analysis is done with (or let go of) points of `rows` packages.
    public func released(rows: Int) {
        state.withLock { $0.rows -= rows }
    }

    /// Packages kept so far, in all.
    public var kept: Int { state.withLock { $0.kept } }
}
