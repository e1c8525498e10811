public import BLEWire

/// Link tuning on hcipico's own host: LE Connection Update (Command Status, then LE Connection Update
/// Complete for this handle), LE Set Data Length (Command Complete; LE Data Length Change), LE Set PHY
/// (Command Status; LE PHY Update Complete) and LE Read Remote Features (Command Status; LE Read Remote
/// Features Complete), each wait bounded. Use with `LinkTuner().apply(_:to:)`.
extension HCIConnection: LinkTuningTarget {
    /// The link's `handle`.
    public var connectionHandle: UInt16 { handle }

    /// Sends `command` through the host; when `subevent` is given and the answer is success, then waits up
    /// to `eventTimeout` for that LE Meta subevent on this link.
    /// - Throws: `.noAnswer` when the command timed out; `.gone` when the link is down or the host failed
    ///   otherwise.
    public func exchange<Command: HCICommandPacket>(
        _ command: Command,
        awaiting subevent: UInt8?,
        eventTimeout: Duration
    ) async throws(LinkTuningFailure) -> (answer: HCICommandResult, event: [UInt8]?) {
        if let reason = disconnectReason { throw .gone("the link is down: \(HCIStatus(rawValue: reason))") }
        let waiter = subevent.map { LinkEventWaiter(subevent: $0, handle: handle) }
        if let waiter { host.state.withLock { $0.linkEventWaiters[ObjectIdentifier(waiter)] = waiter } }
        defer {
            if let waiter {
                _ = host.state.withLock { $0.linkEventWaiters.removeValue(forKey: ObjectIdentifier(waiter)) }
            }
        }
        let answer: HCICommandResult
        do throws(HCIHostError) {
            answer = try await host.command(command)
        } catch {
            switch error {
            case .commandTimeout(let opcode):
                throw .noAnswer(opcode: opcode, waited: host.configuration.commandTimeout)
            default:
                throw .gone("\(error)")
            }
        }
        guard let waiter, answer.hciStatus == .success else { return (answer, nil) }
        return (answer, await waiter.wait(timeout: eventTimeout, clock: host.clock))
    }

    /// What the host knows is in force on this link: the parameters of Connection Complete or the last
    /// Connection Update Complete, the last Data Length Change and PHY Update Complete (nil: none seen).
    public var linkState: (connection: LinkConnectionState, dataLength: LinkDataLengthState?, phy: LinkPHYState?) {
        state.withLock { state in
            (
                LinkConnectionState(
                    interval: state.interval,
                    latency: state.latency,
                    supervisionTimeout: state.supervisionTimeout
                ),
                state.dataLength,
                state.phy
            )
        }
    }
}

extension HCIHost {
    /// Hands an LE Meta event to the tuning waits (reader thread; a dictionary check when none waits).
    func offerToLinkEventWaiters(_ packet: UnsafeRawBufferPointer) {
        let waiters = state.withLock { $0.linkEventWaiters.isEmpty ? [] : Array($0.linkEventWaiters.values) }
        for waiter in waiters where waiter.offer(packet) { return }
    }
}
