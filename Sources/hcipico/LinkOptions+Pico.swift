import PicoLink

extension LinkRequest {
    /// Opens the link and the EmStat Pico session on it (the VSP service found and subscribed).
    func openPico() async throws(DeviceLink.Failure) -> (link: DeviceLink, session: PicoSession) {
        let opened = try await open()
        do {
            let session = try await PicoSession.open(client: opened.client, name: opened.name)
            return (opened, session)
        } catch {
            await opened.close()
            let hint = SecurityHint.suffix(for: error, mode: security?.mode)
            throw DeviceLink.Failure(description: "\(opened.name): \(error)\(hint)", status: error.exitStatus)
        }
    }
}

extension LinkOptions {
    /// Opens the link and the EmStat Pico session on it.
    func openPico() async throws(DeviceLink.Failure) -> (link: DeviceLink, session: PicoSession) {
        try await request().openPico()
    }
}
