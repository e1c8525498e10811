import BLEHost
import BLELinux
public import Logging

/// Listens for advertisements on any transport a device can be opened on: the kernel's raw HCI socket
/// of an adapter, or hcipico's own HCI host on a controller it drives itself (user channel, UART, TCP).
/// One way to scan for the CLI's `scan` and for a program embedding hcipico.
public struct DeviceScanner: Sendable {
    /// Where to listen.
    public let transport: TransportSpec
    /// Where the controller hcipico's own host starts on is described (at debug level).
    public let logger: Logger

    /// A scanner on `transport`.
    public init(transport: TransportSpec, logger: Logger = Logger(label: "hcipico.scan")) {
        self.transport = transport
        self.logger = logger
    }

    /// How a scan ended, and what it could not do on the way.
    public struct Outcome: Sendable, Equatable {
        /// Why the scan ended.
        public var ending: Ending
        /// What went wrong without ending the scan (malformed reports ignored, a scan left enabled).
        public var warnings: [String]
    }

    /// Why a scan ended.
    public enum Ending: Sendable, Equatable {
        /// Its duration passed.
        case duration
        /// The calling task was cancelled first.
        case interrupted
        /// The transport went away, for the reason given.
        case transportLost(String)
    }

    /// Scans with `parameters` until `duration` passes (nil: until the calling task is cancelled) or the
    /// transport goes away, giving `report` every advertisement and scan response in arrival order.
    /// Throws when the scan cannot start: the transport cannot be opened, or the controller refuses it
    /// (`.host(.commandFailed(_, .commandDisallowed))`: a scan already runs).
    public func scan(
        _ parameters: ScanParameters,
        for duration: Duration?,
        report: @Sendable (HCIAdvertisement) -> Void
    ) async throws(LinkOpenError) -> Outcome {
        switch transport {
        case .kernel(let adapter): try await scanKernel(adapter: adapter, parameters, for: duration, report: report)
        case .userChannel, .serial, .tcp: try await scanOwnHost(parameters, for: duration, report: report)
        }
    }

    private func scanKernel(
        adapter: HCIAdapterName?,
        _ parameters: ScanParameters,
        for duration: Duration?,
        report: @Sendable (HCIAdvertisement) -> Void
    ) async throws(LinkOpenError) -> Outcome {
        let socket: HCISocket
        do {
            socket = try HCISocket.open(adapter)
        } catch {
            throw LinkOpenError(error.message, cause: .system(error))
        }
        defer { socket.close() }
        var outcome = Outcome(ending: .duration, warnings: [])
        let scanned: KernelScanOutcome
        do {
            scanned = try await KernelScanner(socket: socket).scan(parameters, for: duration) { advertisement in
                report(advertisement)
                return true
            }
        } catch {
            guard error.kind == .cancelled else { throw LinkOpenError(error.message, cause: .system(error)) }
            outcome.ending = .interrupted
            return outcome
        }
        switch scanned.ending {
        case .duration, .stopped: outcome.ending = .duration
        case .cancelled: outcome.ending = .interrupted
        case .socketClosed(let reason): outcome.ending = .transportLost(reason)
        }
        if scanned.malformedReports > 0 {
            outcome.warnings.append(
                "ignored \(scanned.malformedReports) malformed advertising report(s); first: "
                    + (scanned.malformedErrors.first.map { "\($0)" } ?? "?")
            )
        }
        if let restore = scanned.restoreFailure {
            outcome.warnings.append("could not disable the scan on \(socket.adapter.name): \(restore)")
        }
        return outcome
    }

    private func scanOwnHost(
        _ parameters: ScanParameters,
        for duration: Duration?,
        report: @Sendable (HCIAdvertisement) -> Void
    ) async throws(LinkOpenError) -> Outcome {
        // The host starts as a link's own host starts; a start the task's cancel cut short is an
        // interrupted scan.
        let host: HCIHost
        do {
            host = try await SharedHosts.start(transport, capture: nil, logger: logger)
        } catch {
            if case .host(.cancelled) = error.cause { return Outcome(ending: .interrupted, warnings: []) }
            if Task.isCancelled { return Outcome(ending: .interrupted, warnings: []) }
            throw error
        }
        let stream: AsyncStream<HCIAdvertisement>
        do throws(HCIHostError) {
            stream = try await host.startScanning(parameters)
        } catch {
            await host.shutdown()
            if Task.isCancelled || error == .cancelled { return Outcome(ending: .interrupted, warnings: []) }
            throw LinkOpenError("\(transport): \(error)", cause: .host(error))
        }
        // The duration's end stops the scan, which finishes the stream; a cancellation ends the loop.
        let durationPassed = await withTaskGroup(of: Bool.self) { group in
            if let duration {
                group.addTask {
                    guard (try? await Task.sleep(for: duration)) != nil else { return false }
                    try? await host.stopScanning()
                    return true
                }
            }
            for await advertisement in stream { report(advertisement) }
            group.cancelAll()
            return await group.contains(true)
        }
        var outcome = Outcome(ending: .duration, warnings: [])
        if let reason = host.closeReason {
            outcome.ending = .transportLost("\(reason)")
        } else if Task.isCancelled && !durationPassed {
            outcome.ending = .interrupted
        }
        // Disabled from a task of its own: a cancelled task's commands would not be sent.
        let stopped = await Task { () -> HCIHostError? in
            do throws(HCIHostError) {
                try await host.stopScanning()
                return nil
            } catch {
                return error
            }
        }.value
        if let stopped, host.closeReason == nil { outcome.warnings.append("could not disable the scan: \(stopped)") }
        await host.shutdown()
        return outcome
    }
}
