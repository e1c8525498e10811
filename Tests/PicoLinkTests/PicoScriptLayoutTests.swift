import PicoLink
import Testing

@Suite struct PicoScriptLayoutTests {
    @Test func eachPackageBlockKeepsItsNamesInOrder() throws {
        let script = try PicoScript(
            "e\nvar a\nvar b\nvar c\nvar i\nmeas_loop_ca a b 0 10m 1\n  pck_start\n  pck_add a\n  pck_add b\n  pck_end\n"
                + "endloop\nloop i < 2\npck_start\n\tpck_add c\npck_end\nendloop\n\n"
        )
        #expect(script.packageLayouts == [["a", "b"], ["c"]])
        #expect(script.names(forPackageOf: 2) == ["a", "b"])
        #expect(script.names(forPackageOf: 1) == ["c"])
        #expect(script.names(forPackageOf: 3) == nil)
    }

    @Test func blocksOfOneLengthThatDisagreeNameNothing() throws {
        let script = try PicoScript("pck_start\npck_add a\npck_end\npck_start\npck_add b\npck_end\n", checked: false)
        #expect(script.packageLayouts == [["a"], ["b"]])
        #expect(script.names(forPackageOf: 1) == nil)
    }

    @Test func anUnfinishedBlockNamesNothing() throws {
        let script = try PicoScript("pck_start\npck_add a\n", checked: false)
        #expect(script.packageLayouts.isEmpty)
    }
}
