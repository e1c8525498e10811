import DeviceRuns
import MethodSCRIPT
import Testing

/// The console's language: its own commands at the start of a script, MethodSCRIPT otherwise.
@Suite struct ConsoleInputTests {
    @Test func theConsolesCommandsAreReadAtTheStartOfAScript() {
        #expect(ConsoleInput("help", inScript: false) == .help)
        #expect(ConsoleInput("  :help ", inScript: false) == .help)
        #expect(ConsoleInput(":quit", inScript: false) == .quit)
        #expect(ConsoleInput(":save run 1.csv", inScript: false) == .save(path: "run 1.csv"))
        #expect(ConsoleInput(":save", inScript: false) == .save(path: ""))
        #expect(ConsoleInput(":load  cv.mscr ", inScript: false) == .load(path: "cv.mscr"))
        #expect(ConsoleInput(":method cv.toml", inScript: false) == .methodFile(path: "cv.toml"))
        #expect(
            ConsoleInput(":run CV scan_rate=0.05 n_scans=2", inScript: false)
                == .method(.cv, settings: ["scan_rate=0.05", "n_scans=2"])
        )
        #expect(ConsoleInput("", inScript: false) == .run)
    }

    @Test func aCommandGivenWronglySaysWhatIsWrong() {
        #expect(ConsoleInput(":load", inScript: false) == .misuse(":load needs a file name"))
        #expect(ConsoleInput(":method", inScript: false) == .misuse(":method needs one file name"))
        #expect(ConsoleInput(":method a b", inScript: false) == .misuse(":method needs one file name"))
        #expect(
            ConsoleInput(":run", inScript: false) == .misuse(":run needs a technique ('hcipico methods' lists them)")
        )
        guard case .misuse(let message) = ConsoleInput(":run xyz", inScript: false) else {
            Issue.record("an unknown technique is a misuse")
            return
        }
        #expect(message.hasPrefix(":run: no technique xyz"))
    }

    /// Inside a script every line but an empty one is MethodSCRIPT, as is any line that is not one of
    /// the console's commands exactly.
    @Test func everythingElseIsMethodSCRIPT() {
        #expect(ConsoleInput(":quit", inScript: true) == .scriptLine(":quit"))
        #expect(ConsoleInput("help", inScript: true) == .scriptLine("help"))
        #expect(ConsoleInput("", inScript: true) == .run)
        #expect(ConsoleInput("  ", inScript: true) == .scriptLine("  "))
        #expect(ConsoleInput("e", inScript: false) == .scriptLine("e"))
        #expect(ConsoleInput("help me", inScript: false) == .scriptLine("help me"))
        #expect(ConsoleInput(":quit now", inScript: false) == .scriptLine(":quit now"))
        #expect(ConsoleInput(":savefile", inScript: false) == .scriptLine(":savefile"))
    }
}
