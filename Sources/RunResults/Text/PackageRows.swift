import Foundation
public import PicoLink

/// A run's packages as the rows of the live table `connect` and the console show: the package's
/// index, its loop and scan, then each value (the shortest decimal that reads back as the value, which
/// is the decimal the device sent), in columns.
public enum PackageRows {
    /// The column heads for a run whose packages look like `package`: `#`, `loop`, `scan`, then each
    /// value's name and unit (`p [V]`).
    public static func header(for package: PicoPackage) -> String {
        pad("#", 6) + pad("loop", 5) + pad("scan", 5)
            + package.values.map { pad("\($0.name ?? $0.code) [\($0.unit)]", 16) }.joined()
    }

    /// The row of `package`.
    public static func row(_ package: PicoPackage) -> String {
        pad(String(package.index), 6) + pad(String(package.loop), 5) + pad(String(package.scanNumber), 5)
            + package.values.map { pad(String($0.value), 16) }.joined()
    }

    /// `points 40 of 101 (39 %)  rate 9.9/s  elapsed 4.0 s  left 6.2 s`: a run's progress; without an
    /// expected count only points, rate and elapsed time, and the final line has no time left.
    public static func progress(points: Int, expected: Int?, elapsed: Double, final: Bool) -> String {
        let rate = elapsed > 0 ? Double(points) / elapsed : 0
        var line = "points \(points)"
        if let expected, expected > 0 {
            line += " of \(expected) (\(min(100, points * 100 / expected)) %)"
        }
        line += "  rate \(decimal(rate))/s  elapsed \(decimal(elapsed)) s"
        if !final, let expected, points > 0, rate > 0, points < expected {
            line += "  left \(decimal(Double(expected - points) / rate)) s"
        }
        return line
    }

    /// Left-aligned in `width`, and always followed by at least one space.
    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : TextColumn.pad(text, width, left: true)
    }

    private static func decimal(_ value: Double) -> String { String(format: "%.1f", value) }
}
