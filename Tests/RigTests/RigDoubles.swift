import BLEHost
import BLETesting
import Foundation
import PicoLink
import PicoSimulator
import RigCore
import RigModel
import Synchronization

/// Simulated Picos over socketpairs, a new one per connect, or with `device` one that outlives its
/// links (a script it runs goes on when the link is lost, as on the instrument); the test can drop the
/// newest link or make the next connects fail.
final class SimulatorConnector: DeviceConnector {
    let configuration: SimulatedPicoConfiguration
    /// The device every link reaches, when it outlives its links.
    let device: SimulatedPico?
    private let state = Mutex<(failures: Int, connects: Int, peripherals: [SimulatedPicoPeripheral])>((0, 0, []))

    init(configuration: SimulatedPicoConfiguration = .fast, device: SimulatedPico? = nil) {
        self.configuration = configuration
        self.device = device
    }

    /// The device of the newest link.
    var newestDevice: SimulatedPico? { state.withLock { $0.peripherals.last?.pico } }

    /// The next `count` connects fail.
    func failNext(_ count: Int) { state.withLock { $0.failures = count } }

    var connects: Int { state.withLock { $0.connects } }

    /// The device goes away: its end of the newest link closes.
    func dropLink() {
        state.withLock { $0.peripherals.last }?.close()
    }

    /// The adapter under every device fails: every open link closes at once.
    func dropAllLinks() {
        for peripheral in state.withLock({ $0.peripherals }) { peripheral.close() }
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "the device did not answer" }
    }

    func connect(_ device: DeviceConfig) async throws -> DeviceConnection {
        let refuse = state.withLock { state -> Bool in
            state.connects += 1
            guard state.failures > 0 else { return false }
            state.failures -= 1
            return true
        }
        if refuse { throw Refused() }
        let (host, deviceEnd) = try SocketPairATTTransport.makePair()
        let peripheral =
            self.device.map { SimulatedPicoPeripheral(transport: deviceEnd, pico: $0) }
            ?? SimulatedPicoPeripheral(transport: deviceEnd, configuration: configuration)
        try peripheral.start()
        state.withLock { $0.peripherals.append(peripheral) }
        let client = try await GATTClient.connect(transport: host)
        return DeviceConnection(client: client, parameters: "test", readRSSI: { -50 }) {
            client.bearer.close()
            peripheral.close()
        }
    }
}

/// A journal in memory: what the rig recorded, in order.
final class MemoryJournal: RunJournal {
    struct Run: Equatable {
        var provenance: RunProvenance
        var packages: [PicoPackage] = []
        var ended: (complete: Bool, reason: String?)?
        var cell: String?

        static func == (lhs: Run, rhs: Run) -> Bool {
            lhs.provenance == rhs.provenance && lhs.packages == rhs.packages
                && lhs.ended?.complete == rhs.ended?.complete
                && lhs.ended?.reason == rhs.ended?.reason && lhs.cell == rhs.cell
        }
    }

    private let state = Mutex<[Run]>([])
    /// Called after each package with the run's package count.
    let onPackage: @Sendable (Int) -> Void

    /// What `endedRequests` gives: an earlier process's requests.
    let earlierRequests: [RunRequest]

    /// Given a run's package count after each package: the wait the journal asks for (its
    /// backpressure), or nil.
    let backpressure: @Sendable (Int) -> JournalBackpressure?

    /// Called as each run's start is recorded, before the recording goes on.
    let onRunStarted: @Sendable () async -> Void

    init(
        endedRequests: [RunRequest] = [],
        onPackage: @escaping @Sendable (Int) -> Void = { _ in },
        backpressure: @escaping @Sendable (Int) -> JournalBackpressure? = { _ in nil },
        onRunStarted: @escaping @Sendable () async -> Void = {}
    ) {
        earlierRequests = endedRequests
        self.onPackage = onPackage
        self.backpressure = backpressure
        self.onRunStarted = onRunStarted
    }

    func endedRequests(perDevice: Int) throws -> [RunRequest] { earlierRequests }

    var runs: [Run] { state.withLock { $0 } }

    func runs(of device: String) -> [Run] { runs.filter { $0.provenance.device == device } }

    /// One past the device's highest run number recorded, as the SQLite journal counts.
    func nextRunNumber(device: String) async throws -> Int {
        (runs(of: device).map(\.provenance.deviceRun).max() ?? 0) + 1
    }

    func runStarted(_ provenance: RunProvenance) async throws {
        state.withLock { $0.append(Run(provenance: provenance)) }
        await onRunStarted()
    }

    func record(_ package: PicoPackage, run: UUID) throws -> JournalBackpressure? {
        let count = state.withLock { runs -> Int in
            guard let index = runs.firstIndex(where: { $0.provenance.runID == run }) else { return 0 }
            runs[index].packages.append(package)
            return runs[index].packages.count
        }
        onPackage(count)
        return backpressure(count)
    }

    func flush() async throws {}

    private let requestLog = Mutex<[RunRequest]>([])
    private let actionLog = Mutex<[ControlAction]>([])
    /// Every record of a request, in order.
    var requestRecords: [RunRequest] { requestLog.withLock { $0 } }
    var controlActions: [ControlAction] { actionLog.withLock { $0 } }

    func requestChanged(_ request: RunRequest) async throws {
        requestLog.withLock { $0.append(request) }
    }

    func controlAction(_ action: ControlAction) async throws {
        actionLog.withLock { $0.append(action) }
    }

    func runEnded(
        _ run: UUID,
        complete: Bool,
        reason: String?,
        time: Double,
        overflowed: Int,
        cell: String?
    ) async throws {
        state.withLock { runs in
            guard let index = runs.firstIndex(where: { $0.provenance.runID == run }) else { return }
            runs[index].ended = (complete, reason)
            runs[index].cell = cell
        }
    }
}
