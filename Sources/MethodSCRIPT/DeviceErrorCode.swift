/// A MethodSCRIPT error code (`!XXXX`, four hex digits). Its message comes from the generated table
/// built from `Specs/methodscript/error-codes.csv`.
public struct DeviceErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as a number: `0x4004` for `!4004`.
    public var rawValue: UInt16

    /// The code `rawValue`, whether the table lists it or not.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// "Communication mode invalid": also the reply to `Z` when no script runs.
    public static let communicationModeInvalid = DeviceErrorCode(rawValue: 0x0006)

    /// The four hex digits as the device writes them.
    public var hex: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The table's message, or `unknown error` for a code it does not list.
    public var message: String { entry?.message ?? "unknown error" }

    /// The code as the device writes it and its message: `!0006 (Communication mode invalid)`.
    public var description: String { "!\(hex) (\(message))" }
}

/// The groups of the error table.
public enum DeviceErrorCategory: String, Sendable, CaseIterable {
    /// Communication and runtime errors (`0001`–`0144`).
    case communication
    /// Script parser errors (`4001`–`4042`).
    case script
    /// Script argument errors (`4200`–`4215`).
    case argument
    /// `7FFF`: the device must be reset.
    case fatal
}
