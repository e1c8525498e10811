/// The EmStat Pico current ranges as they appear in package metadata (`,2<hex>`), and the choice that
/// autoranging makes.
///
/// Two tables: low-speed (`set_pgstat_mode 2`, indices 0–11) and high-speed (`set_pgstat_mode 3`,
/// indices 0x80–0x89). Selection model (a simulator choice, not a published algorithm): the allowed ranges are
/// those between the autoranging bounds (or the single fixed range); the device takes the smallest allowed range
/// whose full scale is at least `|I| / 0.8`, else the largest allowed one.
public struct PicoCurrentRange: Sendable, Hashable {
    /// The metadata index (`0x00`–`0x0B` low speed, `0x80`–`0x89` high speed).
    public let index: UInt8
    /// Full scale in amperes.
    public let fullScale: Double

    /// Low-speed table (index → full scale), from `Specs/methodscript/metadata.csv` as the decoder's.
    public static let lowSpeed: [PicoCurrentRange] = lowSpeedFullScales.enumerated().map {
        PicoCurrentRange(index: UInt8($0.offset), fullScale: $0.element)
    }

    /// High-speed table (index with bit 7 set → full scale), from the same table.
    public static let highSpeed: [PicoCurrentRange] = highSpeedFullScales.enumerated().map {
        PicoCurrentRange(index: UInt8(0x80 + $0.offset), fullScale: $0.element)
    }

    /// The table for a `set_pgstat_mode` value (3 = high speed, anything else = low speed).
    public static func table(pgstatMode: Int) -> [PicoCurrentRange] {
        pgstatMode == 3 ? highSpeed : lowSpeed
    }

    /// Fraction of full scale above which autoranging moves up and the status warns.
    public static let upperFraction = 0.8
    /// Fraction of full scale below which the status reports UNDERLOAD (a simulator choice: the published
    /// examples show UNDERLOAD at 1e-4 of full scale and OK at 6e-2).
    public static let underloadFraction = 0.005
}

/// Package status bits (metadata `,1<hex>`).
public enum PicoStatus {
    public static let ok: UInt8 = 0x0
    public static let timingError: UInt8 = 0x1
    public static let overload: UInt8 = 0x2
    public static let underload: UInt8 = 0x4
    public static let overloadWarning: UInt8 = 0x8
}

/// The current-range settings of a running script and the choice autoranging makes from them.
struct CurrentRangeSelector {
    var pgstatMode = 2
    /// `set_range ba X` / `set_cr X`; `nil` = the device default (1 mA).
    var fixedRange: Double?
    /// `set_autoranging ba min max`; `nil` = autoranging off.
    var autorange: (minimum: Double, maximum: Double)?

    /// The position in `table` of the first range whose full scale covers `current`, or the last one.
    private static func covering(_ current: Double, in table: [PicoCurrentRange]) -> Int {
        table.firstIndex { $0.fullScale >= current * 0.999_999 } ?? table.count - 1
    }

    /// The range and status for a measured current `current` (A).
    func select(for current: Double) -> (range: PicoCurrentRange, status: UInt8) {
        let table = PicoCurrentRange.table(pgstatMode: pgstatMode)
        let magnitude = abs(current)
        let chosen: Int
        if let bounds = autorange {
            let low = Self.covering(bounds.minimum, in: table)
            let high = max(low, Self.covering(bounds.maximum, in: table))
            var pick = high
            for candidate in low...high where table[candidate].fullScale * PicoCurrentRange.upperFraction >= magnitude {
                pick = candidate
                break
            }
            chosen = pick
        } else {
            chosen = Self.covering(fixedRange ?? 1e-3, in: table)
        }
        let range = table[chosen]
        return (range, status(for: current, in: range))
    }

    /// The status bits for `current` measured in `range`.
    func status(for current: Double, in range: PicoCurrentRange) -> UInt8 {
        let magnitude = abs(current)
        var status = PicoStatus.ok
        if !magnitude.isFinite || magnitude > range.fullScale {
            status |= PicoStatus.overload
        } else if magnitude > range.fullScale * PicoCurrentRange.upperFraction {
            status |= PicoStatus.overloadWarning
        } else if magnitude < range.fullScale * PicoCurrentRange.underloadFraction {
            status |= PicoStatus.underload
        }
        return status
    }
}
