public import BLEHost
public import PicoLink

/// The hint an insufficient-security refusal gets when no `--security` was given.
public enum SecurityHint {
    /// `; the device wants a secured link: add --security auto (or --security encrypt)` when `error` is a
    /// refusal for want of security and no security was asked for (`mode` nil); else nothing.
    public static func suffix(for error: GATTError, mode: SecurityMode?) -> String {
        guard case .att(let refusal) = error, refusal.code.asksForSecurity else { return "" }
        guard mode == nil else { return "" }
        let level = refusal.code == .insufficientAuthentication ? "authenticate" : "encrypt"
        return "; the device wants a secured link: add --security auto (or --security \(level))"
    }
}

extension SecurityHint {
    /// The hint for a session's GATT refusal (nothing for its other errors).
    public static func suffix(for error: PicoSessionError, mode: SecurityMode?) -> String {
        if case .gatt(let refusal) = error { return suffix(for: refusal, mode: mode) }
        return ""
    }
}
