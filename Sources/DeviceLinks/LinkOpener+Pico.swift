import BLELinux
import PicoLink

extension LinkOpener {
    /// Opens the EmStat Pico `target` names: over Bluetooth LE, the link and the session on it (the VSP
    /// service found and subscribed); on a serial port, the port held for this program and the session
    /// on its UART. Whatever was opened is closed again when the session cannot be.
    public func openPico(_ target: DeviceTarget, options: Options = Options()) async throws(LinkOpenError) -> OpenedPico
    {
        if case .serialPort(let spec) = target { return try await openSerialPico(spec, capture: options.capture) }
        let link = try await open(target, options: options)
        do {
            let session = try await PicoSession.open(
                client: link.client,
                name: link.name,
                clock: clock,
                capture: options.capture
            )
            return OpenedPico(session: session, link: link)
        } catch {
            await link.close()
            throw LinkOpenError("\(link.name): \(error)", cause: .session(error))
        }
    }

    /// Opens and holds `spec`'s port as a channel for a Pico's session (a second program that tries
    /// the port is refused).
    public func openSerialPort(_ spec: SerialPortSpec) throws(LinkOpenError) -> UARTChannel {
        do {
            return try UARTChannel.open(spec)
        } catch {
            throw LinkOpenError(error.message, cause: .system(error))
        }
    }

    private func openSerialPico(_ spec: SerialPortSpec, capture: RawCapture?) async throws(LinkOpenError) -> OpenedPico
    {
        let channel = try openSerialPort(spec)
        do {
            let session = try await PicoSession.open(
                channel: channel,
                name: spec.description,
                clock: clock,
                capture: capture
            )
            logger.debug("\(spec): open, \(channel.summary)")
            return OpenedPico(session: session, link: nil)
        } catch {
            channel.close()
            throw LinkOpenError("\(spec): \(error)", cause: .session(error))
        }
    }
}
