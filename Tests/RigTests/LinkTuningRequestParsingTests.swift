import BLEHost
import RigCore
import Testing

@Suite struct LinkTuningRequestParsingTests {
    @Test func presetsByName() throws {
        #expect(try LinkTuningRequest(parsing: "low-latency") == .lowLatency)
        #expect(try LinkTuningRequest(parsing: "balanced") == .balanced)
        #expect(try LinkTuningRequest(parsing: "power-save") == .powerSave)
    }

    @Test func explicitValuesInMilliseconds() throws {
        let plain = try LinkTuningRequest(parsing: "7.5-15")
        #expect(
            plain.connection
                == HCIConnectionParameters(intervalMin: 6, intervalMax: 12, latency: 0, supervisionTimeout: 200)
        )
        let full = try LinkTuningRequest(parsing: "30-50,2,4000")
        #expect(
            full.connection
                == HCIConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 2, supervisionTimeout: 400)
        )
        let quarter = try LinkTuningRequest(parsing: "8.75-11.25,0,100")
        #expect(quarter.connection.intervalMin == 7 && quarter.connection.intervalMax == 9)
        #expect(quarter.connection.supervisionTimeout == 10)
        // Without a timeout, the smallest valid of 2 s or just above (1 + latency) × max × 2.
        let long = try LinkTuningRequest(parsing: "4000-4000,2")
        #expect(long.connection.supervisionTimeout == 2401)
        #expect(HCIConnectionParameterLimits().accepts(plain.connection))
    }

    static let bad: [(String, Int, String, String)] = [
        ("fast", 1, "interval", "not a preset"),
        ("7-15", 1, "interval minimum", "multiple of 1.25 ms"),
        ("5-15", 1, "interval minimum", "outside 7.5 ms–4 s"),
        ("7.5-4001.25", 5, "interval maximum", "outside 7.5 ms–4 s"),
        ("15-7.5", 4, "interval maximum", "below the minimum"),
        ("7.5-15,500", 8, "latency", "0…499"),
        ("7.5-15,-1", 8, "latency", "0…499"),
        ("7.5-15,0,95", 10, "timeout", "100 ms–32 s"),
        ("7.5-15,0,2005", 10, "timeout", "10 ms steps"),
        ("7.5-15,0,33000", 10, "timeout", "100 ms–32 s"),
        ("1000-1000,20,4000", 14, "timeout", "must exceed (1 + latency) × max interval × 2 = 42000 ms"),
        ("4000-4000,499", 11, "latency", "no supervision timeout ≤ 32 s"),
        ("7.5-15,0,2000,1", 15, "text", "more than three"),
        ("7.5.1-15", 1, "interval minimum", "not a number"),
        ("7.505-15", 1, "interval minimum", "not a number"),
        ("", 1, "interval", "not MIN-MAX"),
    ]

    @Test func badValuesAreLocated() {
        for (text, column, field, reason) in Self.bad {
            do throws(LinkTuningSyntaxError) {
                let request = try LinkTuningRequest(parsing: text)
                Issue.record("'\(text)' parsed as \(request)")
            } catch {
                #expect(error.offset + 1 == column, "'\(text)': \(error)")
                #expect(error.field == field, "'\(text)': \(error)")
                #expect(error.reason.contains(reason), "'\(text)': \(error)")
                #expect(error.description.contains("low-latency, balanced, power-save"))
            }
        }
    }
}
