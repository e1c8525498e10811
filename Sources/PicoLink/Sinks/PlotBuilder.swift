#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Collects packages and turns them into the plots that suit what was measured:
/// I–E for voltammetry (one series per scan), I–t for chronoamperometry, Nyquist and Bode for EIS,
/// and each variable against the package number for anything else.
public struct PlotBuilder: Sendable {
    private var packages: [PicoPackage] = []
    public private(set) var title: String

    public init(title: String) { self.title = title }

    public mutating func add(_ package: PicoPackage) { packages.append(package) }

    public var count: Int { packages.count }

    public func plots() -> [Plot] {
        let codes = Set(packages.flatMap { $0.values.map(\.code) })
        if codes.isSuperset(of: ["dc", "cc", "cd"]) { return impedancePlots() }
        if codes.contains("ba") && codes.contains("eb") { return [currentVersusTime(timeCode: "eb")] }
        if codes.contains("ba") && codes.contains("da") { return [currentVersusPotential()] }
        return genericPlots(codes: codes.sorted())
    }

    private func currentVersusPotential() -> Plot {
        var series: [Plot.Series] = []
        var key: (loop: Int, scan: Int?)? = nil
        for package in packages {
            guard let e = package["da"], let i = package["ba"] else { continue }
            if key == nil || key! != (package.loop, package.scan) {
                key = (package.loop, package.scan)
                let name = package.scan.map { "scan \($0 + 1)" } ?? "loop \(package.loop + 1)"
                series.append(Plot.Series(name: name))
            }
            series[series.count - 1].append(x: e, y: i)
        }
        return Plot(
            title: "\(title): current vs potential",
            x: .init(label: "E", unit: "V"),
            y: .init(label: "I", unit: "A"),
            series: series
        )
    }

    private func currentVersusTime(timeCode: String) -> Plot {
        var series = Plot.Series(name: "I")
        for package in packages {
            guard let t = package[timeCode], let i = package["ba"] else { continue }
            series.append(x: t, y: i)
        }
        return Plot(
            title: "\(title): current vs time",
            x: .init(label: "t", unit: "s"),
            y: .init(label: "I", unit: "A"),
            series: [series]
        )
    }

    private func impedancePlots() -> [Plot] {
        var nyquist = Plot.Series(name: "Z")
        var modulus = Plot.Series(name: "|Z|")
        var phase = Plot.Series(name: "phase")
        for package in packages {
            guard let f = package["dc"], let real = package["cc"], let imaginary = package["cd"] else { continue }
            // The device's `cd` is −Z'' (positive for a capacitive cell, as in PalmSens' own output),
            // which is what a Nyquist plot and a "−phase" Bode plot draw upwards.
            nyquist.append(x: real, y: imaginary)
            modulus.append(x: f, y: (real * real + imaginary * imaginary).squareRoot())
            phase.append(x: f, y: atan2(imaginary, real) * 180 / .pi)
        }
        return [
            Plot(
                title: "\(title): Nyquist",
                x: .init(label: "Z'", unit: "Ω"),
                y: .init(label: "-Z''", unit: "Ω"),
                series: [nyquist],
                equalAspect: true
            ),
            Plot(
                title: "\(title): Bode modulus",
                x: .init(label: "f", unit: "Hz", logarithmic: true),
                y: .init(label: "|Z|", unit: "Ω", logarithmic: true),
                series: [modulus]
            ),
            Plot(
                title: "\(title): Bode phase",
                x: .init(label: "f", unit: "Hz", logarithmic: true),
                y: .init(label: "-phase", unit: "°"),
                series: [phase]
            ),
        ]
    }

    private func genericPlots(codes: [String]) -> [Plot] {
        codes.map { code in
            var series = Plot.Series(name: code)
            var unit = ""
            var quantity = code
            for package in packages {
                guard let value = package.values.first(where: { $0.code == code }) else { continue }
                unit = value.unit
                quantity = value.quantity
                series.append(x: Double(package.index), y: value.value)
            }
            return Plot(
                title: "\(title): \(quantity)",
                x: .init(label: "package", unit: ""),
                y: .init(label: code, unit: unit),
                series: [series]
            )
        }
    }
}
