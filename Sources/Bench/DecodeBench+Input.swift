import MethodSCRIPT

/// The deterministic input of the `decode` suite: 80 % LSV-like `Pda…;ba…,1s,2rr` lines and 20 %
/// EIS `Pdc…;cc…,10,2rr;cd…,10,2rr` lines, from a fixed seed.
enum DecodeBenchInput {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func uniform(_ low: Double, _ high: Double) -> Double {
            low + (high - low) * Double(next() >> 11) / Double(1 << 53)
        }
    }

    static func make(lines: Int, seed: UInt64 = 12345) -> [UInt8] {
        var random = Generator(state: seed)
        var out: [UInt8] = []
        out.reserveCapacity(lines * 40)
        let u = UInt8(ascii: "u")
        let p = UInt8(ascii: "p")
        let n = UInt8(ascii: "n")
        let m = UInt8(ascii: "m")
        for _ in 0..<lines {
            out.append(UInt8(ascii: "P"))
            if random.below(10) < 8 {
                let potential = random.uniform(-1, 1)
                PackageEncoder.append(.appliedPotential, raw: Int(potential * 1e6), prefix: u, to: &out)
                out.append(UInt8(ascii: ";"))
                let small = random.below(4) == 0
                let current = Int(random.uniform(-1, 1) * (small ? 9e7 : 1.2e8))
                let status = PackageStatus(rawValue: random.below(8) == 0 ? 4 : 0)
                let range = MeasurementRange(rawValue: UInt8(0x80 + random.below(10)))
                PackageEncoder.append(
                    .current,
                    raw: current,
                    prefix: small ? n : p,
                    status: status,
                    range: range,
                    to: &out
                )
            } else {
                let frequency = random.uniform(0.1, 200_000)
                let (raw, prefix) = PackageEncoder.bestEncoding(of: frequency) ?? (0, 0x20)
                PackageEncoder.append(.appliedFrequency, raw: raw, prefix: prefix, to: &out)
                let range = MeasurementRange(rawValue: UInt8(0x80 + random.below(10)))
                out.append(UInt8(ascii: ";"))
                let real = Int(random.uniform(9e6, 1.1e7))
                PackageEncoder.append(.zReal, raw: real, prefix: m, status: .ok, range: range, to: &out)
                out.append(UInt8(ascii: ";"))
                let imaginary = Int(random.uniform(-1.2e8, 1.2e8))
                PackageEncoder.append(.zImaginary, raw: imaginary, prefix: u, status: .ok, range: range, to: &out)
            }
            out.append(0x0A)
        }
        return out
    }
}
