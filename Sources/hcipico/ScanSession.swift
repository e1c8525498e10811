import BLEHost
import BLELinux
import BLEWire
import Synchronization

/// One `hcipico scan`: through the kernel's raw HCI socket or through hcipico's own HCI host, every
/// report into the printer, then how the scan ended.
struct ScanSession: Sendable {
    let transport: TransportSpec
    let parameters: ScanParameters
    /// nil: until cancelled (Ctrl-C, SIGTERM).
    let duration: Duration?
    let printer: ScanPrinter

    enum Ending: Sendable, Equatable {
        case duration
        case interrupted
        case transportLost(String)
    }

    struct Failure: Sendable {
        let message: String
        let status: ExitStatus
    }

    struct Result: Sendable {
        var ending: Ending = .duration
        var failure: Failure?
        var warnings: [String] = []
        let printer: ScanPrinter
    }

    func run() async -> Result {
        switch transport {
        case .kernel(let adapter): await runKernel(adapter: adapter)
        case .userChannel, .serial, .tcp: await runHost()
        }
    }

    /// The kernel path: the raw HCI socket of the adapter (the first that is up by default).
    private func runKernel(adapter: HCIAdapterName?) async -> Result {
        var result = Result(printer: printer)
        let socket: HCISocket
        do {
            socket = try HCISocket.open(adapter)
        } catch {
            result.failure = Failure(message: error.message, status: error.exitStatus)
            return result
        }
        defer { socket.close() }
        do {
            let outcome = try await KernelScanner(socket: socket).scan(parameters, for: duration) { advertisement in
                printer.add(advertisement)
                return true
            }
            switch outcome.ending {
            case .duration, .stopped: result.ending = .duration
            case .cancelled: result.ending = .interrupted
            case .socketClosed(let reason): result.ending = .transportLost(reason)
            }
            if outcome.malformedReports > 0 {
                result.warnings.append(
                    "ignored \(outcome.malformedReports) malformed advertising report(s); first: "
                        + (outcome.malformedErrors.first.map { "\($0)" } ?? "?")
                )
            }
            if let restore = outcome.restoreFailure {
                result.warnings.append("could not disable the scan on \(socket.adapter.name): \(restore)")
            }
        } catch {
            if error.kind == .cancelled {
                result.ending = .interrupted
            } else {
                result.failure = Failure(message: error.message, status: error.exitStatus)
            }
        }
        return result
    }

    /// hcipico's own host on a controller it drives itself (user channel, UART, TCP).
    private func runHost() async -> Result {
        var result = Result(printer: printer)
        let hci: any HCITransport
        do {
            hci = try transport.openHCITransport()
        } catch {
            result.failure = Failure(message: error.message, status: error.exitStatus)
            return result
        }
        let host = HCIHost(transport: hci)
        let stream: AsyncStream<HCIAdvertisement>
        do throws(HCIHostError) {
            _ = try await host.start()
            stream = try await host.startScanning(parameters)
        } catch {
            if Task.isCancelled || error == .cancelled {
                result.ending = .interrupted
            } else {
                result.failure = Failure(message: "\(transport): \(error)", status: Self.status(error))
            }
            await host.shutdown()
            return result
        }
        // The deadline stops the scan, which finishes the stream; cancellation ends the loop itself.
        let deadline = Deadline()
        let timer = duration.map { duration in
            Task {
                try? await Task.sleep(for: duration)
                if !Task.isCancelled {
                    deadline.reached()
                    try? await host.stopScanning()
                }
            }
        }
        for await advertisement in stream { printer.add(advertisement) }
        timer?.cancel()
        if let reason = host.closeReason {
            result.ending = .transportLost("\(reason)")
        } else if Task.isCancelled && !deadline.isReached {
            result.ending = .interrupted
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
        if let stopped, host.closeReason == nil { result.warnings.append("could not disable the scan: \(stopped)") }
        await host.shutdown()
        return result
    }

    /// Set once the scan's duration has passed (so its end is not taken for an interruption).
    private final class Deadline: Sendable {
        private let flag = Atomic<Bool>(false)
        func reached() { flag.store(true, ordering: .sequentiallyConsistent) }
        var isReached: Bool { flag.load(ordering: .sequentiallyConsistent) }
    }

    /// The exit status of a failure on hcipico's own host; Command Disallowed means a scan already runs.
    static func status(_ error: HCIHostError) -> ExitStatus {
        if case .commandFailed(_, let status) = error, status == .commandDisallowed { return .busy }
        return error.exitStatus
    }
}
