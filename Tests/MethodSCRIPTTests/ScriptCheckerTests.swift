import Foundation
import MethodSCRIPT
import Testing

/// The checker against every script in `Examples/` and against broken scripts: each error class is refused
/// at its line and column, with the device's code and a message that names what is wrong.
@Suite struct ScriptCheckerTests {
    static let examples: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")

    @Test func everyExampleScriptIsAccepted() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path)
            .filter { $0.hasSuffix(".mscr") }
        #expect(names.count >= 7)
        for name in names {
            let text = try String(contentsOf: Self.examples.appendingPathComponent(name), encoding: .ascii)
            #expect(ScriptChecker.check(text).isEmpty, "\(name): \(ScriptChecker.check(text))")
        }
    }

    /// One broken line after `e` and a declared `p`/`c`: (line, the expected line, column, code, words).
    @Test(arguments: [
        ("frobnicate 1", 4, 1, "4001", "frobnicate: no such command"),
        ("set_e", 4, 6, "4004", "an argument is missing"),
        ("set_e 100m 200m", 4, 12, "420A", "takes no more arguments"),
        ("set_range xyz 100u", 4, 11, "4209", "variable type"),
        ("timer_get 5", 4, 11, "420D", "a variable is needed here"),
        ("add_var q 1", 4, 9, "420B", "q is not declared"),
        ("set_e 1.5", 4, 8, "4004", "no decimal point"),
        ("set_e +1", 4, 7, "4004", "not a number"),
        ("set_e 3", 4, 7, "4205", "set_e potential = 3 (3 V): must be from -1.7 V to 2 V"),
        ("meas_loop_lsv p c -500m 500m 0 100m", 4, 30, "4204", "step = 0 (0 V): must be above 0"),
        ("meas_loop_eis p c p 10m 300k 100 11i 0", 4, 25, "4205", "frequency_start = 300k"),
        ("meas_loop_eis p c p 10m 100k 100 11.5 0", 4, 36, "4004", "no decimal point"),
        ("meas_loop_eis p c p 10m 100k 100 3m 0", 4, 34, "4207", "must be a whole number"),
        ("meas_loop_cv p c 0 500m -500m 10m 100m nscans(0)", 4, 47, "4204", "nscans: at least 1"),
        ("endloop", 4, 1, "400E", "endloop without a loop"),
        ("endif", 4, 1, "400E", "endif without an if"),
        ("var p", 4, 5, "4026", "p is already declared"),
        ("var Bad", 4, 5, "402B", "a name is a lowercase letter"),
        ("set_pgstat_mode 7", 4, 17, "4205", "must be from 0 to 4"),
        ("send_string hello", 4, 13, "4004", "double quotes"),
        ("set_e " + String(repeating: "0", count: 130), 4, 129, "0008", "a line of 136 characters"),
    ])
    func eachErrorClassIsLocated(line: String, number: Int, column: Int, code: String, words: String) {
        let problems = ScriptChecker.check("e\nvar p\nvar c\n\(line)\n\n")
        let first = problems.first
        #expect(problems.count == 1, "\(problems)")
        #expect(first?.line == number && first?.column == column, "\(line): \(problems)")
        #expect(first?.code.hex == code, "\(line): \(problems)")
        #expect(first?.message.contains(words) == true, "\(line): \(problems)")
    }

    @Test func unbalancedLoopsAndPackagesAreRefusedAtTheEnd() {
        let open = ScriptChecker.check("e\nvar i\nstore_var i 0i ja\nloop i < 3i\nadd_var i 1i\n\n")
        #expect(open.map(\.code.hex) == ["4018"] && open.first?.line == 6, "\(open)")
        #expect(open.first?.message.contains("not ended") == true)
        let package = ScriptChecker.check("var p\npck_start\npck_add p\n")
        #expect(package.map(\.code.hex) == ["4018"], "\(package)")
        #expect(package.first?.message.contains("pck_end") == true)
        let nested = ScriptChecker.check(
            "var p\nvar c\ncell_on\nmeas_loop_ca p c 0 10m 1\nmeas_loop_ca p c 0 10m 1\nendloop\nendloop\n"
        )
        #expect(nested.first?.code.hex == "400B" && nested.first?.line == 5, "\(nested)")
    }

    @Test func everyLineIsCheckedAndLinesAreThoseOfTheTextAsGiven() {
        // Without an `e` line the first line is line 1; each bad line is reported, not only the first.
        let problems = ScriptChecker.check("var p\nbogus\nset_e 9\nvar p\n")
        #expect(problems.map(\.line) == [2, 3, 4], "\(problems)")
        #expect(problems.map(\.code.hex) == ["4001", "4205", "4026"])
        #expect(
            problems[1].description == "line 3, column 7: set_e potential = 9 (9 V): must be from -1.7 V to 2 V (!4205)"
        )
    }

    @Test func integersMayBeHexOrBinaryAndConditionsTakeTheirOperators() {
        let script = "var d\nstore_var d 0x1Fi ja\nloop d >= 0b10i\nsub_var d 1i\nendloop\nif d == 1i\nelse\nendif\n"
        #expect(ScriptChecker.check(script).isEmpty, "\(ScriptChecker.check(script))")
        #expect(ScriptChecker.check("var d\nloop d =< 1\nendloop\n").first?.code.hex == "4004")
    }

    /// Every command of the table, written with arguments of its kinds, is accepted, but for those only
    /// other instruments have, which are refused by name; the table and the checker cannot drift apart.
    @Test func everyCommandOfTheTableIsAcceptedWithArgumentsOfItsKinds() {
        for signature in ScriptCommandSignature.table.values where signature.name != "on_finished:" {
            var words = [signature.name]
            let prelude = ["var a", "var b", "var c", "var d"]
            var variables = ["a", "b", "c", "d"].makeIterator()
            for argument in signature.arguments {
                switch argument.kind {
                case .declare: words.append("fresh")
                case .target, .variable: words.append(variables.next() ?? "a")
                case .value, .integer:
                    // 1, or the bound's nearest end when 1 is outside it.
                    let value = min(max(1, argument.bound?.minimum ?? 1), argument.bound?.maximum ?? 1)
                    words.append(MethodNumber.text(value))
                case .type: words.append("ba")
                case .condition: words.append("a < 1")
                case .string: words.append("\"hello\"")
                case .block: break
                }
            }
            var lines = prelude + [words.joined(separator: " ")]
            switch signature.kind {
            case .loop, .measurementLoop: lines.append("endloop")
            case .if: lines.append("endif")
            case .elseIf, .else: lines = prelude + ["if a < 1", words.joined(separator: " "), "endif"]
            case .endLoop: lines = prelude + ["loop a < 1", "endloop"]
            case .endIf: lines = prelude + ["if a < 1", "endif"]
            case .packageStart: lines.append("pck_end")
            case .packageAdd: lines = prelude + ["pck_start", words.joined(separator: " "), "pck_end"]
            case .packageEnd: lines = prelude + ["pck_start", "pck_end"]
            default: break
            }
            let problems = ScriptChecker.check(lines.joined(separator: "\n") + "\n")
            if signature.onlyOn.isEmpty {
                #expect(problems.isEmpty, "\(signature.name): \(lines) \(problems)")
            } else {
                #expect(
                    problems.count == 1 && problems.first?.message.contains("the EmStat Pico does not have it") == true
                )
            }
        }
    }

    /// The galvanostat's commands (chronopotentiometry, an applied current) are the EmStat4's and the
    /// Nexus's: the vendor's CP example applies to those only, so a Pico script with them is refused where
    /// they stand, while the simulator (which runs CP) still parses them.
    @Test func theGalvanostatsCommandsAreRefusedForThePico() {
        let script =
            "e\nvar p\nvar c\nset_i 0\nmeas_loop_cp p c 1m 100m 2\n  pck_start\n  pck_add p\n  pck_end\nendloop\n\n"
        let problems = ScriptChecker.check(script)
        #expect(problems.map(\.line) == [4, 5], "\(problems)")
        #expect(problems.map(\.column) == [1, 1])
        #expect(problems.allSatisfy { $0.code.hex == "4001" })
        #expect(
            problems.last?.message
                == "meas_loop_cp is for the EmStat4 and Nexus only (chronopotentiometry); the EmStat Pico does not have it"
        )
        let indented = ScriptChecker.check("var p\nvar c\n  set_i 0\n")
        #expect(indented.first?.line == 3 && indented.first?.column == 3, "\(indented)")
    }
}
