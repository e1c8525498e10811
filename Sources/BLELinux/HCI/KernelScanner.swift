public import BLEHost
public import BLEWire
public import Coordination

/// LE scanning on the kernel path: the raw HCI socket sends the scan commands the kernel does not
/// send itself and reads the advertising reports the controller sends back.
///
/// The extended commands are used when the controller's Supported_Commands bitmap lists both of
/// them, the legacy ones otherwise (a controller refuses legacy scan commands once extended ones were
/// used, which the kernel does when it can). Whatever this scanner enabled it disables again: when
/// the scan ends normally, when the body stops it, on an error, and when the task is cancelled (the
/// disable command is then sent from a task of its own, which the cancellation does not reach).
public struct KernelScanner: Sendable {
    /// The raw HCI socket the scan commands go out on and the advertising reports come in on.
    public let socket: HCISocket
    /// How long each scan command may wait for its Command Complete or Command Status.
    public var commandTimeout: Duration
    /// What a scan's duration is measured on.
    public var clock: any TimeSource

    /// A scanner on `socket`; `commandTimeout` bounds the wait for each command's answer, and a scan's
    /// duration is measured on `clock`, by default the socket's.
    public init(socket: HCISocket, commandTimeout: Duration = .seconds(2), clock: (any TimeSource)? = nil) {
        self.socket = socket
        self.commandTimeout = commandTimeout
        self.clock = clock ?? socket.clock
    }

    /// The adapter's Supported_Commands bitmap (HCI_Read_Local_Supported_Commands).
    public func supportedCommands() async throws(BLELinuxError) -> HCISupportedCommands {
        let result = try await run(HCIReadLocalSupportedCommands(), "Read Local Supported Commands")
        guard case .complete(let bytes) = result else {
            throw BLELinuxError(.system, "\(adapterName): Read Local Supported Commands answered with Command Status")
        }
        do throws(DecodeError) {
            return HCISupportedCommands(try HCIReadLocalSupportedCommands.ReturnParameters(bytes: bytes))
        } catch {
            throw BLELinuxError(.system, "\(adapterName): Read Local Supported Commands return parameters \(error)")
        }
    }

    /// Scans with `parameters` until `duration` passes (nil: until cancelled), `body` returns false,
    /// or the socket closes. `body` gets every advertisement and scan response in arrival order;
    /// malformed report events are counted, with their located errors, in the outcome. Setting up the
    /// scan throws (a refused command, no answer); once it runs, the ending is in the outcome.
    public func scan(
        _ parameters: ScanParameters,
        for duration: Duration?,
        _ body: (HCIAdvertisement) -> Bool
    ) async throws(BLELinuxError) -> KernelScanOutcome {
        let commands = parameters.commands(
            extended: ScanCommands.extendedSupported(by: try await supportedCommands()),
            ownAddressType: socket.adapter.address.value == 0 ? 1 : 0
        )
        var outcome = KernelScanOutcome(ending: .duration, extended: commands.extended)
        // Subscribed before enabling: no report is lost between the enable and the first read.
        let (items, feed) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(1024))
        let events = socket.events()
        let forwarder = Task {
            for await event in events { feed.yield(.event(event)) }
            feed.yield(.closed)
        }
        // A deadline after the scan ended finds the feed finished and yields nothing.
        if let duration { clock.wake(at: clock.now + duration) { feed.yield(.deadline) } }
        defer {
            forwarder.cancel()
            feed.finish()
        }
        var enableSent = false
        do throws(BLELinuxError) {
            try await expectSuccess(commands.setParameters, "set the scan parameters")
            enableSent = true
            try await expectSuccess(commands.enable, "enable scanning")
        } catch {
            if error.kind == .cancelled {
                outcome.ending = .cancelled
                if enableSent { outcome.restoreFailure = await restore(commands.disable) }
                return outcome
            }
            // Refused: nothing was enabled. No answer: it may have been, so it is disabled anyway.
            if enableSent && error.kind == .timedOut { _ = await restore(commands.disable) }
            throw error
        }
        outcome.ending = await consume(items, into: &outcome, body)
        if case .socketClosed = outcome.ending {
            outcome.restoreFailure = "the socket closed before scanning could be disabled"
        } else {
            outcome.restoreFailure = await restore(commands.disable)
        }
        return outcome
    }

    enum Item: Sendable {
        case event(HCIEventPacket)
        case deadline
        case closed
    }

    /// Reads until the deadline, the body's stop, the socket's end or cancellation; says which.
    private func consume(
        _ items: AsyncStream<Item>,
        into outcome: inout KernelScanOutcome,
        _ body: (HCIAdvertisement) -> Bool
    ) async -> KernelScanOutcome.Ending {
        for await item in items {
            switch item {
            case .deadline: return .duration
            case .closed: return .socketClosed(socket.closeReason.map { "\($0)" } ?? "closed")
            case .event(let event):
                let subevent = event.leSubevent
                guard
                    subevent == HCIEventPacket.LESubevent.advertisingReport
                        || subevent == HCIEventPacket.LESubevent.extendedAdvertisingReport
                else { continue }
                do throws(DecodeError) {
                    let bytes = [event.code, UInt8(truncatingIfNeeded: event.parameters.count)] + event.parameters
                    for advertisement in try HCIAdvertisement.reports(inEvent: bytes) {
                        outcome.reports += 1
                        if !body(advertisement) { return .stopped }
                    }
                } catch {
                    outcome.malformedReports += 1
                    if outcome.malformedErrors.count < 8 { outcome.malformedErrors.append(error) }
                }
            }
        }
        return .cancelled
    }

    /// Sends `disable` from a task of its own (a cancelled caller's commands would not be sent);
    /// returns why it failed, if it did.
    private func restore(_ disable: any HCICommandPacket) async -> String? {
        let scanner = self
        return await Task {
            do throws(BLELinuxError) {
                try await scanner.expectSuccess(disable, "disable scanning")
                return nil
            } catch {
                return error.message
            }
        }.value
    }

    /// Runs `command` and throws unless it succeeded.
    func expectSuccess(_ command: any HCICommandPacket, _ purpose: String) async throws(BLELinuxError) {
        let result = try await run(command, purpose)
        if let status = result.status, status != 0 {
            throw Self.refusal(adapter: adapterName, purpose: purpose, opcode: type(of: command).opcode, status: status)
        }
    }

    private func run(
        _ command: some HCICommandPacket,
        _ purpose: String
    ) async throws(BLELinuxError) -> HCICommandResult {
        do throws(HCICommandError) {
            return try await socket.command(command, timeout: commandTimeout)
        } catch {
            throw Self.failure(error, adapter: adapterName, purpose: purpose)
        }
    }

    var adapterName: String { socket.adapter.name.description }
}
