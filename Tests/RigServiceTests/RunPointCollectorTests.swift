import Foundation
import MethodSCRIPT
import PicoLink
import RigService
import RunResults
import Testing

/// The points the rig keeps for each run's analysis as it records them: a table as the journal would give,
/// kept only for the runs begun, and bounded per run and in all.
@Suite struct RunPointCollectorTests {
    static func package(_ index: Int, _ values: [(String, String?, Double)], scan: Int? = nil) -> PicoPackage {
        PicoPackage(
            device: "sim",
            run: 4,
            index: index,
            loop: 1,
            scan: scan,
            hostTime: 0,
            values: values.map { PicoValue(variable: VariableType(code: $0.0)!, name: $0.1, value: $0.2) }
        )
    }

    @Test func aTableBuiltPackageByPackageFillsWhatAPackageLacks() {
        var points = PointColumns(deviceRun: 4)
        points.add(Self.package(0, [("da", "p", 0.1), ("ba", "c", 1e-6)]))
        points.add(Self.package(1, [("da", "p", 0.2), ("ba", "f", 2e-6)], scan: 2))
        points.add(Self.package(2, [("da", "p", 0.3), ("ba", "c", 3e-6), ("ba", "c", 9)]))
        let table = points.table
        #expect(table.columns.map(\.name) == ["run", "scan", "p", "c", "f"])
        #expect(table.columns.map(\.unit) == ["", "", "V", "A", "A"])
        #expect(table.column("run")?.values == [4, 4, 4] && table.column("scan")?.values == [1, 2, 1])
        #expect(table.column("p")?.values == [0.1, 0.2, 0.3])
        // A column first seen in the second package: NaN before it and where a package lacks it; the
        // first of two values of one column in a package is kept.
        #expect(table.column("c")?.values[1].isNaN == true && table.column("c")?.values[2] == 3e-6)
        #expect(table.column("f")?.values[0].isNaN == true && table.column("f")?.values[1] == 2e-6)
        #expect(table.column("f")?.values[2].isNaN == true)
    }

    @Test func onlyBegunRunsAreKeptAndTheirTablesHandedOverOnce() {
        let collector = RunPointCollector()
        let (kept, other) = (UUID(), UUID())
        collector.begin(kept, deviceRun: 4)
        for index in 0..<3 {
            collector.record(Self.package(index, [("da", "p", Double(index))]), run: kept)
            collector.record(Self.package(index, [("da", "p", Double(index))]), run: other)
        }
        #expect(collector.ended(other) == nil)
        #expect(collector.ended(kept)?.column("p")?.values == [0, 1, 2])
        #expect(collector.ended(kept) == nil)
        #expect(collector.kept == 3)
    }

    @Test func aRunPastItsLimitOrTheTotalIsLetGo() {
        let collector = RunPointCollector(rowLimit: 5, totalRowLimit: 8)
        let (long, first, second) = (UUID(), UUID(), UUID())
        collector.begin(long, deviceRun: 1)
        for index in 0..<6 { collector.record(Self.package(index, [("da", "p", 1)]), run: long) }
        // Past 5 packages the run is let go: its analysis reads the journal.
        #expect(collector.ended(long) == nil)
        collector.begin(first, deviceRun: 2)
        collector.begin(second, deviceRun: 3)
        for index in 0..<5 { collector.record(Self.package(index, [("da", "p", 1)]), run: first) }
        for index in 0..<4 { collector.record(Self.package(index, [("da", "p", 1)]), run: second) }
        // 5 + 3 reach the total of 8: the fourth package of the second run lets that run go.
        #expect(collector.ended(second) == nil)
        let table = collector.ended(first)
        #expect(table?.rowCount == 5)
        // Until the analysis releases the first run's rows, they count against the total.
        let third = UUID()
        collector.begin(third, deviceRun: 4)
        for index in 0..<4 { collector.record(Self.package(index, [("da", "p", 1)]), run: third) }
        #expect(collector.ended(third) == nil)
        collector.released(rows: 5)
        let fourth = UUID()
        collector.begin(fourth, deviceRun: 5)
        for index in 0..<5 { collector.record(Self.package(index, [("da", "p", 1)]), run: fourth) }
        #expect(collector.ended(fourth)?.rowCount == 5)
    }
}
