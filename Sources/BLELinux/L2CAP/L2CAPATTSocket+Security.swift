import BLEHost
internal import CBlueZ
internal import Glibc

extension L2CAPATTSocket {
    /// The link's security level as the kernel reports it (`BT_SECURITY`); nil once the socket is closed.
    public var securityLevel: L2CAPSecurityLevel? {
        let level = try? channel.withSocket { (socket) throws(SystemError) in
            try socket.option(level: SOL_BLUETOOTH, name: BT_SECURITY, initial: bt_security()).value.level
        }
        return level.flatMap(L2CAPSecurityLevel.init(rawValue:))
    }

    /// Asks the kernel to raise the connected link to `level` (`BT_SECURITY`): it encrypts with a key it
    /// holds or runs SMP pairing, and the ATT channel waits meanwhile. Returns once the kernel reports
    /// the level; throws when the link closes first or `timeout` passes (the pairing failed).
    public func raiseSecurity(
        to level: L2CAPSecurityLevel,
        timeout: Duration = .seconds(30)
    ) async throws(BLELinuxError) {
        if let current = securityLevel, current.rawValue >= level.rawValue { return }
        var value = bt_security()
        value.level = level.rawValue
        do throws(TransportError) {
            try channel.withSocket { (socket) throws(SystemError) in
                try socket.setOption(level: SOL_BLUETOOTH, name: BT_SECURITY, value)
            }
        } catch {
            throw BLELinuxError(.securityFailed, "\(peer): could not ask the kernel for security \(level): \(error)")
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let current = securityLevel else {
                throw BLELinuxError(.securityFailed, "\(peer): the link closed while the kernel paired")
            }
            if current.rawValue >= level.rawValue { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
        throw BLELinuxError(
            .securityFailed,
            "\(peer): the kernel did not reach security level \(level) within \(timeout) (pairing failed?)"
        )
    }
}
