import Foundation
import Testing

@testable import PicoSimulator

@Suite struct ExampleScriptTests {
    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var packages: Int
        var types: [String]
        var scans = 0
        var description: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(file: "CA.mscr", packages: 100, types: ["eb", "ba"]),
        Expectation(file: "LSV_10k.mscr", packages: 101, types: ["da", "ba"]),
        Expectation(file: "CV.mscr", packages: 201, types: ["da", "ba"]),
        Expectation(file: "CV_nscans.mscr", packages: 603, types: ["da", "ba"], scans: 3),
        Expectation(file: "SWV.mscr", packages: 201, types: ["da", "ba", "ba", "ba"]),
        Expectation(file: "DPV.mscr", packages: 201, types: ["da", "ba"]),
        Expectation(file: "EIS.mscr", packages: 31, types: ["dc", "cc", "cd"]),
    ]

    @Test(arguments: expectations)
    func exampleRunsWithTheRightShape(_ expectation: Expectation) throws {
        let script = try ExampleScripts.text(expectation.file)
        #expect(script.hasPrefix("e\n") && script.hasSuffix("\n\n"))
        #expect(script.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\r") })
        #expect(script.split(separator: "\n").allSatisfy { $0.count <= 128 })
        let reply = PicoHarness().run(script: script)
        let check = ReplyCheck(reply: reply)
        #expect(check.problems.isEmpty, "\(check.problems.prefix(3))")
        #expect(check.packages.count == expectation.packages)
        #expect(check.measurementLoops == 1)
        #expect(check.scans == expectation.scans)
        for package in check.packages {
            #expect(package.map(\.type) == expectation.types)
            for variable in package {
                let metadata = ["ba", "cc", "cd"].contains(variable.type)
                #expect((variable.status != nil) == metadata && (variable.range != nil) == metadata)
            }
        }
    }

    @Test func lsvOnTheDummyCellFollowsOhmsLaw() throws {
        let reply = PicoHarness().run(script: try ExampleScripts.text("LSV_10k.mscr"))
        let packages = ReplyCheck(reply: reply).packages
        #expect(packages.count == 101)
        for (index, package) in packages.enumerated() {
            let potential = package[0].value
            let current = package[1].value
            #expect(abs(potential - (-0.5 + 0.01 * Double(index))) < 1e-6)
            let expected = potential / 10_000
            #expect(abs(current - expected) <= 0.01 * abs(expected) + 1e-9, "E \(potential) I \(current)")
            // Low-speed table (set_pgstat_mode 2) within set_autoranging ba 5u 50u: 8 µA … 63 µA.
            #expect((3...6).contains(package[1].range ?? -1))
        }
        #expect(packages[50][1].status == Int(PicoStatus.underload))
        #expect(packages[0][1].status == Int(PicoStatus.ok) && packages[0][1].range == 6)
    }

    @Test func cyclicVoltammogramHasReversiblePeaksAroundE0() throws {
        let reply = PicoHarness().run(script: try ExampleScripts.text("CV.mscr"))
        let points = ReplyCheck(reply: reply).packages.map { (e: $0[0].value, i: $0[1].value) }
        let anodic = points.max { $0.i < $1.i }!
        let cathodic = points.min { $0.i < $1.i }!
        let e0 = RedoxCouple().formalPotential
        #expect(abs(anodic.e - (e0 + 0.029)) <= 0.015, "anodic peak at \(anodic.e)")
        #expect(abs(cathodic.e - (e0 - 0.029)) <= 0.015, "cathodic peak at \(cathodic.e)")
        // Randles–Ševčík: ip = 0.4463 nFAC√(nFvD/RT) ≈ 16 µA at 100 mV/s.
        #expect(anodic.i > 12e-6 && anodic.i < 20e-6, "ip \(anodic.i)")
        #expect(cathodic.i < -0.5 * anodic.i)
    }

    @Test func pulseTechniquesPeakAtE0() throws {
        let e0 = RedoxCouple().formalPotential
        for file in ["SWV.mscr", "DPV.mscr"] {
            let reply = PicoHarness().run(script: try ExampleScripts.text(file))
            let points = ReplyCheck(reply: reply).packages.map { (e: $0[0].value, i: $0[1].value) }
            let peak = points.max { $0.i < $1.i }!
            // DPV peaks at E0 − ΔE/2 (pulse 50 mV); SWV at E0.
            let expected = file == "DPV.mscr" ? e0 - 0.025 : e0
            #expect(abs(peak.e - expected) <= 0.015, "\(file) peak at \(peak.e)")
        }
    }

    @Test func impedanceFollowsTheRandlesCircuit() throws {
        let reply = PicoHarness().run(script: try ExampleScripts.text("EIS.mscr"))
        let packages = ReplyCheck(reply: reply).packages
        let circuit = RandlesCircuit()
        #expect(abs(packages.first![0].value - 100_000) < 1)
        #expect(abs(packages.last![0].value - 100) < 0.01)
        for package in packages {
            let z = circuit.impedance(frequency: package[0].value)
            #expect(abs(package[1].value - z.real) <= 0.01 * abs(z.real))
            #expect(abs(package[2].value + z.imaginary) <= 0.01 * abs(z.imaginary) + 1e-3)
            #expect(package[1].range.map { $0 >= 0x80 } == true)
        }
    }

    @Test func sameSeedSameBytesOtherSeedOtherNoise() throws {
        let script = try ExampleScripts.text("LSV_10k.mscr")
        let first = PicoHarness().run(script: script)
        let second = PicoHarness().run(script: script)
        var configuration = SimulatedPicoConfiguration.fast
        configuration.noiseSeed = 99
        let third = PicoHarness(configuration: configuration).run(script: script)
        #expect(first == second)
        #expect(first != third)
    }
}
