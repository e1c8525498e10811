import BLEDiagnostics
import BLEHost
public import DeviceLinks
import PicoLink

/// Times write → notification round trips on an echo-style serial peripheral, as `hcipico rtt` does:
/// finds the serial service (Laird VSP, HM-10 or Nordic UART, in that order), subscribes to what it
/// notifies, then writes `count` payloads of `size` bytes without response, each after the echo of the
/// one before arrived (in one notification or several), after `warmup` untimed ones. Measures the round
/// trips and this process's CPU time per round trip, in all and by thread.
public struct EchoTiming: Sendable {
    /// Payload bytes per write (4 to ATT_MTU − 3).
    public let size: Int
    /// Round trips timed.
    public let count: Int
    /// Untimed round trips first.
    public let warmup: Int
    /// How long one echo may take before the timing gives up.
    public let echoTimeout: Duration

    /// A timing of `count` round trips of `size` bytes after `warmup` untimed ones.
    public init(size: Int, count: Int, warmup: Int, echoTimeout: Duration) {
        self.size = size
        self.count = count
        self.warmup = warmup
        self.echoTimeout = echoTimeout
    }

    /// Measures on `link`, opened in `connect` (that figure goes into the report).
    public func measure(on link: DeviceLink, connect: Duration) async throws(EchoTimingError) -> EchoTimingReport {
        let client = link.client
        let discovering = ContinuousClock.now
        let marks = EchoTimingMarks()
        let probe: GATTEchoProbe
        let profile: SerialProfile
        do throws(GATTError) {
            let services = try await client.discoverPrimaryServices()
            guard let found = SerialProfile.detect(in: services),
                let service = services.first(where: { $0.uuid == found.service })
            else { throw GATTError.notFound("\(link.name) has no serial service (Laird VSP, HM-10, Nordic UART)") }
            profile = found
            let characteristics = try await client.discoverCharacteristics(of: service)
            guard let tx = characteristics.first(where: { $0.uuid == profile.tx }),
                let rx = characteristics.first(where: { $0.uuid == profile.rx })
            else {
                throw GATTError.notFound("the \(profile) service of \(link.name) lacks the characteristic it needs")
            }
            probe = try GATTEchoProbe(
                client: client,
                writeHandle: rx.valueHandle,
                payloadSize: size,
                count: count,
                warmup: warmup,
                boundaries: { begin in marks.record(begin) }
            )
            _ = try await client.subscribe(to: tx, kind: .notifications, ended: { probe.fail($0) }) { value in
                probe.receive(value)
            }
        } catch {
            if case .notFound(let text) = error { throw .noSerialService(text) }
            throw .gatt(error)
        }
        let discover = ContinuousClock.now - discovering
        let result: GATTEchoResult
        do {
            result = try await probe.run(stallTimeout: echoTimeout)
        } catch {
            throw .probe(error)
        }
        let measured = try marks.measured()
        return EchoTimingReport(
            device: link.name,
            profile: profile,
            connect: connect,
            mtu: client.mtu,
            discover: discover,
            size: size,
            result: result,
            wall: measured.wall,
            cpuNanoseconds: measured.cpuAfter.clockNanoseconds - measured.cpuBefore.clockNanoseconds,
            statNanoseconds: measured.cpuAfter.statNanoseconds.flatMap { after in
                measured.cpuBefore.statNanoseconds.map { after - $0 }
            },
            threads: measured.threads
        )
    }
}
