import MethodSCRIPT
import PicoLink
import Testing

/// `RunLimits`: which values pass a limit, in words, and the amounts a person types.
@Suite struct RunLimitsTests {
    static func package(potential: Double, current: Double, index: Int = 3) -> PicoPackage {
        PicoPackage(
            device: "pico",
            run: 1,
            index: index,
            loop: 1,
            scan: nil,
            hostTime: 0,
            values: [
                PicoValue(variable: .appliedPotential, value: potential), PicoValue(variable: .current, value: current),
            ]
        )
    }

    @Test func aCurrentPastTheLargestIsNamedWithItsPackage() {
        let limits = RunLimits(maximumCurrent: 1e-3)
        #expect(limits.breach(in: Self.package(potential: 0.5, current: 9e-4)) == nil)
        #expect(limits.breach(in: Self.package(potential: 0.5, current: -9e-4)) == nil)
        #expect(
            limits.breach(in: Self.package(potential: 0.5, current: -1.2e-3))
                == "current -1.2 mA (ba) in package 3 is past the limit of 1 mA"
        )
    }

    @Test func aPotentialOutsideTheWindowIsNamedAndNaNIsNot() {
        let limits = RunLimits(potentialWindow: -0.5...1)
        #expect(limits.breach(in: Self.package(potential: 1, current: 5)) == nil)
        #expect(limits.breach(in: Self.package(potential: .nan, current: 5)) == nil)
        #expect(
            limits.breach(in: Self.package(potential: -0.6, current: 0))
                == "potential -600 mV (da) in package 3 is outside the window -500 mV to 1 V"
        )
        #expect(RunLimits().breach(in: Self.package(potential: 100, current: 100)) == nil)
        #expect(RunLimits().isEmpty && !limits.isEmpty)
    }

    @Test(arguments: [
        ("1m", 1e-3), ("1 mA", 1e-3), ("500u", 5e-4), ("500µA", 5e-4), ("2n", 2e-9), ("0.002", 0.002), ("3k", 3e3),
    ])
    func amountsTakeAnSIPrefixAndTheUnit(text: String, value: Double) throws {
        let amount = try #require(RunLimits.amount(text, unit: "A"))
        #expect(abs(amount - value) <= value * 1e-12)
    }

    @Test func whatIsNotAnAmountOrAWindowIsRefused() {
        #expect(RunLimits.amount("", unit: "A") == nil)
        #expect(RunLimits.amount("lots", unit: "A") == nil)
        #expect(RunLimits.amount("1x", unit: "A") == nil)
        #expect(RunLimits.window("-0.5,1") == -0.5...1)
        #expect(RunLimits.window("-500m,1.2V") == -0.5...1.2)
        #expect(RunLimits.window("1,-1") == nil)
        #expect(RunLimits.window("1") == nil)
        #expect(RunLimits.window("a,b") == nil)
    }
}
