public import DeviceLinks
public import Logging
public import PicoLink

/// A Pico taken over for runs: what it answered, and the script it was found running.
public struct TakenOverPico: Sendable {
    /// Its version reply.
    public let version: PicoVersion
    /// The script it was still running when it was taken over (stopped since), if any.
    public let leftover: LeftoverScript?
    /// Its serial number, when asked for and given within a second.
    public let serial: String?
}

/// Why a Pico could not be taken over: the session's error, and what to say (with the security a
/// refusal asks for, when none was asked for).
public struct TakeOverFailure: Error, Sendable, CustomStringConvertible {
    /// The session's error.
    public let error: PicoSessionError
    /// `no version reply: …`.
    public let description: String
}

extension OpenedPico {
    /// Takes the device over for runs (`PicoSession.takeOver`: a script it is running is stopped, and said
    /// on `logger`) and, when `askingSerial`, reads its serial number. `security` is what the link was
    /// asked to be (nil: nothing), for a refusal's hint.
    public func takeOver(
        askingSerial: Bool,
        security: SecurityMode?,
        logger: Logger
    ) async throws(TakeOverFailure) -> TakenOverPico {
        let version: PicoVersion
        let leftover: LeftoverScript?
        do {
            (version, leftover) = try await session.takeOver()
        } catch {
            let hint = SecurityHint.suffix(for: error, mode: security)
            throw TakeOverFailure(error: error, description: "no version reply: \(error)\(hint)")
        }
        // A device that does not answer `i` within a second has no serial number.
        let serial = askingSerial ? try? await session.serialNumber(timeout: .seconds(1)) : nil
        if let leftover { logger.notice("\(leftover.description)") }
        return TakenOverPico(version: version, leftover: leftover, serial: serial)
    }
}
