import PicoLink

extension LinkOpener {
    /// Opens the link and the EmStat Pico session on it (the serial service found and subscribed); the
    /// link is closed again when the session cannot be opened.
    public func openPico(
        _ target: DeviceTarget,
        options: Options = Options()
    ) async throws(LinkOpenError) -> (
        link: DeviceLink, session: PicoSession
    ) {
        let link = try await open(target, options: options)
        do {
            let session = try await PicoSession.open(client: link.client, name: link.name, clock: clock)
            return (link, session)
        } catch {
            await link.close()
            throw LinkOpenError("\(link.name): \(error)", cause: .session(error))
        }
    }
}
