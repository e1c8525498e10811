import MethodSCRIPT
import PicoLink
import RunResults
import Testing

/// The live table `connect` and the console show, and the progress line beside it.
@Suite struct PackageRowsTests {
    static let package = PicoPackage(
        device: "sim",
        run: 1,
        index: 12,
        loop: 1,
        scan: 2,
        hostTime: 0,
        values: [
            PicoValue(variable: VariableType(code: "da")!, name: "p", value: -0.125),
            PicoValue(variable: VariableType(code: "ba")!, value: 1.5e-6),
        ]
    )

    @Test func theHeaderNamesEachValueWithItsUnitAndTheRowsLineUpUnderIt() {
        let header = PackageRows.header(for: Self.package)
        let row = PackageRows.row(Self.package)
        #expect(header == "#     loop scan p [V]           ba [A]          ")
        #expect(row == "12    1    2    -0.125          1.5e-06         ")
        #expect(header.count == row.count)
    }

    @Test func aValueWiderThanItsColumnKeepsASpaceAfterIt() {
        var package = Self.package
        package.index = 1_234_567
        #expect(PackageRows.row(package).hasPrefix("1234567 1    2    "))
    }

    @Test func progressGivesTheShareAndTimeLeftOnlyWhenTheScriptSaysHowManyPoints() {
        #expect(
            PackageRows.progress(points: 40, expected: 101, elapsed: 4, final: false)
                == "points 40 of 101 (39 %)  rate 10.0/s  elapsed 4.0 s  left 6.1 s"
        )
        #expect(
            PackageRows.progress(points: 7, expected: nil, elapsed: 1, final: false)
                == "points 7  rate 7.0/s  elapsed 1.0 s"
        )
        #expect(
            PackageRows.progress(points: 101, expected: 101, elapsed: 10, final: true)
                == "points 101 of 101 (100 %)  rate 10.1/s  elapsed 10.0 s"
        )
    }
}
