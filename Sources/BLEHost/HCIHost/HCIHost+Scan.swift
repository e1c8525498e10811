import BLEWire

extension HCIHost {
    /// Starts scanning (extended commands when the controller has them, legacy otherwise) with the
    /// configuration's interval and window, and returns the reports in arrival order. The stream
    /// finishes at `stopScanning()` or when the transport closes.
    public func startScanning(
        active: Bool = true,
        filterDuplicates: Bool = false
    ) async throws(HCIHostError) -> AsyncStream<HCIAdvertisement> {
        try await startScanning(
            ScanParameters(
                active: active,
                interval: configuration.scanInterval,
                window: configuration.scanWindow,
                filterDuplicates: filterDuplicates
            )
        )
    }

    /// Starts scanning with `parameters` (extended commands when the controller has them, legacy
    /// otherwise) and returns the reports in arrival order. The stream finishes at `stopScanning()`
    /// or when the transport closes.
    public func startScanning(_ parameters: ScanParameters) async throws(HCIHostError) -> AsyncStream<HCIAdvertisement>
    {
        guard let controller else { throw .notRunning(nil) }
        try await stopScanning()
        let (stream, continuation) = AsyncStream<HCIAdvertisement>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let own = state.withLock { state in
            state.scan = continuation
            return state.ownAddressType
        }
        let commands = parameters.commands(extended: controller.extendedScanning, ownAddressType: own)
        do throws(HCIHostError) {
            _ = try await execute(commands.setParameters)
            _ = try await execute(commands.enable)
        } catch {
            state.withLock { $0.scan = nil }
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Stops scanning if it runs; finishes the stream `startScanning` returned.
    public func stopScanning() async throws(HCIHostError) {
        guard
            let continuation = state.withLock({ state in
                defer { state.scan = nil }
                return state.scan
            })
        else { return }
        continuation.finish()
        guard let controller else { return }
        _ = try await execute(
            ScanParameters().commands(extended: controller.extendedScanning, ownAddressType: 0).disable
        )
    }

    /// Scans until an advertisement satisfies `matching`, then stops scanning and returns it.
    public func scan(
        timeout: Duration = .seconds(10),
        active: Bool = true,
        matching: @escaping @Sendable (HCIAdvertisement) -> Bool
    ) async throws(HCIHostError) -> HCIAdvertisement {
        let stream = try await startScanning(active: active)
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { try? await self?.stopScanning() }
        }
        defer { timer.cancel() }
        var found: HCIAdvertisement?
        for await advertisement in stream where matching(advertisement) {
            found = advertisement
            break
        }
        try await stopScanning()
        if Task.isCancelled { throw .cancelled }
        guard let found else { throw .scanTimeout }
        return found
    }

    func advertised(_ advertisement: HCIAdvertisement) {
        let sink = state.withLock { $0.scan }
        sink?.yield(advertisement)
    }
}
