import BLEWire

extension HCIHost {
    /// Starts scanning (extended commands when the controller has them, legacy otherwise) with the
    /// configuration's interval and window, and returns the reports in arrival order. The stream
    /// finishes at `stopScanning()` or when the transport closes.
    public func startScanning(
        active: Bool = true,
        filterDuplicates: Bool = false
    ) async throws(HCIHostError) -> AsyncStream<HCIAdvertisement> {
        try await startScanning(configuredScan(active: active, filterDuplicates: filterDuplicates))
    }

    /// The configuration's interval and window with `active` and `filterDuplicates`.
    private func configuredScan(active: Bool, filterDuplicates: Bool) -> ScanParameters {
        ScanParameters(
            active: active,
            interval: configuration.scanInterval,
            window: configuration.scanWindow,
            filterDuplicates: filterDuplicates
        )
    }

    /// Starts scanning with `parameters` (extended commands when the controller has them, legacy
    /// otherwise) and returns the reports in arrival order. The stream finishes at `stopScanning()`
    /// or when the transport closes.
    public func startScanning(_ parameters: ScanParameters) async throws(HCIHostError) -> AsyncStream<HCIAdvertisement>
    {
        try await beginScan(parameters).stream
    }

    /// `startScanning`, with the new scan's number.
    private func beginScan(
        _ parameters: ScanParameters
    ) async throws(HCIHostError) -> (stream: AsyncStream<HCIAdvertisement>, generation: UInt64) {
        guard let controller else { throw .notRunning(nil) }
        try await stopScanning()
        let (stream, continuation) = AsyncStream<HCIAdvertisement>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let (own, generation) = state.withLock { state in
            state.scan = Boxed(continuation)
            state.scanGeneration += 1
            return (state.ownAddressType, state.scanGeneration)
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
        return (stream, generation)
    }

    /// Stops scanning if it runs; finishes the stream `startScanning` returned.
    public func stopScanning() async throws(HCIHostError) {
        try await stopScanning(generation: nil)
    }

    /// Stops the scan numbered `generation` (any scan when nil), if it still runs.
    private func stopScanning(generation: UInt64?) async throws(HCIHostError) {
        guard
            let continuation = state.withLock({ state -> AsyncStream<HCIAdvertisement>.Continuation? in
                guard Self.names(state, generation) else { return nil }
                defer { state.scan = nil }
                return state.scan?.value
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
        let (stream, generation) = try await beginScan(configuredScan(active: active, filterDuplicates: false))
        // The timeout is a wake of the host's clock; it stops this scan only (by its number), so a wake
        // that comes after this call has returned leaves a later scan alone.
        clock.wake(at: clock.now + timeout) { [weak self] in
            guard let self, self.isScanning(generation: generation) else { return }
            Task { try? await self.stopScanning(generation: generation) }
        }
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

    /// Whether the scan numbered `generation` (any scan when nil) runs now.
    package func isScanning(generation: UInt64? = nil) -> Bool {
        state.withLock { state in state.scan != nil && Self.names(state, generation) }
    }

    /// Whether `generation` is the current scan's number (nil: any scan).
    private static func names(_ state: State, _ generation: UInt64?) -> Bool {
        generation == nil || generation == state.scanGeneration
    }

    func advertised(_ advertisement: HCIAdvertisement) {
        let sink = state.withLock { $0.scan }?.value
        sink?.yield(advertisement)
    }
}
