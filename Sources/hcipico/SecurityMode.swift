import ArgumentParser
import BLEHost
import DeviceLinks
import PicoLink

/// `--security`: how secured a link must be before it is used (`SecurityMode` says each level).
extension SecurityMode: ExpressibleByArgument {}

/// The hint an insufficient-security refusal gets when no `--security` was given.
enum SecurityHint {
    static func suffix(for error: GATTError, mode: SecurityMode?) -> String {
        guard case .att(let refusal) = error, refusal.code.asksForSecurity else { return "" }
        guard mode == nil else { return "" }
        let level = refusal.code == .insufficientAuthentication ? "authenticate" : "encrypt"
        return "; the device wants a secured link: add --security auto (or --security \(level))"
    }
}

extension SecurityHint {
    static func suffix(for error: PicoSessionError, mode: SecurityMode?) -> String {
        if case .gatt(let refusal) = error { return suffix(for: refusal, mode: mode) }
        return ""
    }
}
