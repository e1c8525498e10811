public import BLEWire

/// Applies a `LinkTuningRequest` to one link, step by step, and reports each step: LE Read Local
/// Supported Features and Supported Commands, LE Read Remote Features, LE Connection Update, LE Set
/// Data Length, LE Set PHY (2M only when both sides report LE feature bit 8). A refusal or a missing
/// event is recorded and the next step still runs.
public struct LinkTuner: Sendable {
    /// LE feature bits (Core 5.4 Vol 6 Part B §4.6): LE Data Packet Length Extension, LE 2M PHY.
    public static let dataLengthExtensionBit: UInt64 = 1 << 5
    /// LE feature bit 8: LE 2M PHY.
    public static let twoMegabitPHYBit: UInt64 = 1 << 8

    /// How long to wait for a completion event after the command was accepted.
    public var eventTimeout: Duration = .seconds(3)
    /// LE Connection Update takes effect at an instant some intervals ahead: a longer wait.
    public var connectionUpdateTimeout: Duration = .seconds(6)

    /// A tuner with the default waits: 3 s per completion event, 6 s for the connection update.
    public init() {}

    /// Runs every step on `target`, in order, and reports how each ended; nothing throws, a failure is a
    /// step's outcome. A step whose command the controller does not list as supported is `.notSupported`
    /// without being tried (when the list cannot be read, no step is skipped for that).
    public func apply(_ request: LinkTuningRequest, to target: some LinkTuningTarget) async -> LinkTuningReport {
        var report = LinkTuningReport(request: request)
        let handle = target.connectionHandle
        let commands: HCISupportedCommands?
        do throws(LinkTuningFailure) {
            let (answer, _) = try await target.exchange(
                HCIReadLocalSupportedCommands(),
                awaiting: nil,
                eventTimeout: .zero
            )
            if case .complete(let parameters) = answer, parameters.count >= 65, parameters[0] == 0 {
                commands = HCISupportedCommands(octets: Array(parameters[1...]))
            } else {
                commands = nil
            }
        } catch {
            commands = nil
        }
        func unlisted<Command: HCICommandPacket>(_: Command.Type, _ name: String) -> String? {
            guard let commands, !commands.supports(Command.self) else { return nil }
            return "our controller does not list \(name) among its supported commands"
        }

        if let why = unlisted(HCILEReadLocalSupportedFeatures.self, "LE Read Local Supported Features") {
            report.localFeatures = .notSupported(why)
        } else {
            report.localFeatures = await features(target, HCILEReadLocalSupportedFeatures())
        }
        if let why = unlisted(HCILEReadRemoteFeatures.self, "LE Read Remote Features") {
            report.remoteFeatures = .notSupported(why)
        } else {
            report.remoteFeatures = await remoteFeatures(target, handle: handle)
        }

        if let why = unlisted(HCILEConnectionUpdate.self, "LE Connection Update") {
            report.connection = .notSupported(why)
        } else {
            report.connection = await connectionUpdate(target, request.connection, handle: handle)
        }

        if let why = unlisted(HCILESetDataLength.self, "LE Set Data Length") {
            report.dataLength = .notSupported(why)
        } else if let local = report.localFeatures.value, local & Self.dataLengthExtensionBit == 0 {
            report.dataLength = .notSupported("our controller lacks LE Data Packet Length Extension (LE feature bit 5)")
        } else {
            report.dataLength = await dataLength(target, request.dataLength, handle: handle)
        }

        report.phy = await phy(
            target,
            request: request,
            report: report,
            unlisted: unlisted(HCILESetPHY.self, "LE Set PHY")
        )
        return report
    }

    private func features(
        _ target: some LinkTuningTarget,
        _ command: HCILEReadLocalSupportedFeatures
    ) async -> LinkTuningOutcome<UInt64> {
        let answer: HCICommandResult
        do throws(LinkTuningFailure) {
            answer = try await target.exchange(command, awaiting: nil, eventTimeout: .zero).answer
        } catch {
            return .failed(error.description)
        }
        guard case .complete(let parameters) = answer, let status = answer.hciStatus else {
            return .failed("LE Read Local Supported Features answered with \(answer)")
        }
        guard status == .success else {
            return .refused(opcode: HCILEReadLocalSupportedFeatures.opcode, status: status)
        }
        guard parameters.count >= 9 else {
            return .failed("LE Read Local Supported Features: \(parameters.count) octets")
        }
        return .done(Self.littleEndian(parameters[1..<9]))
    }

    private func remoteFeatures(_ target: some LinkTuningTarget, handle: UInt16) async -> LinkTuningOutcome<UInt64> {
        let outcome = await run(
            target,
            HCILEReadRemoteFeatures(connectionHandle: handle),
            awaiting: HCILEReadRemoteFeaturesCompleteEvent.self,
            timeout: eventTimeout
        )
        return outcome.map { event in
            event.status == .success
                ? .done(event.leFeatures)
                : .refused(opcode: HCILEReadRemoteFeatures.opcode, status: event.status)
        }
    }

    private func connectionUpdate(
        _ target: some LinkTuningTarget,
        _ wanted: HCIConnectionParameters,
        handle: UInt16
    ) async -> LinkTuningOutcome<LinkConnectionState> {
        let command = HCILEConnectionUpdate(
            connectionHandle: handle,
            connectionIntervalMin: wanted.intervalMin,
            connectionIntervalMax: wanted.intervalMax,
            maxLatency: wanted.latency,
            supervisionTimeout: wanted.supervisionTimeout,
            minCELength: 0,
            maxCELength: 0
        )
        let outcome = await run(
            target,
            command,
            awaiting: HCILEConnectionUpdateCompleteEvent.self,
            timeout: connectionUpdateTimeout
        )
        return outcome.map { event in
            guard event.status == .success else {
                return .refused(opcode: HCILEConnectionUpdate.opcode, status: event.status)
            }
            return .done(
                LinkConnectionState(
                    interval: event.connectionInterval,
                    latency: event.peripheralLatency,
                    supervisionTimeout: event.supervisionTimeout
                )
            )
        }
    }

    private func dataLength(
        _ target: some LinkTuningTarget,
        _ wanted: LinkDataLength,
        handle: UInt16
    ) async -> LinkTuningOutcome<LinkDataLengthState> {
        let command = HCILESetDataLength(connectionHandle: handle, txOctets: wanted.octets, txTime: wanted.time)
        let outcome = await run(target, command, awaiting: HCILEDataLengthChangeEvent.self, timeout: eventTimeout)
        return outcome.map { event in
            .done(
                LinkDataLengthState(
                    maxTxOctets: event.maxTxOctets,
                    maxTxTime: event.maxTxTime,
                    maxRxOctets: event.maxRxOctets,
                    maxRxTime: event.maxRxTime
                )
            )
        }
    }

    private func phy(
        _ target: some LinkTuningTarget,
        request: LinkTuningRequest,
        report: LinkTuningReport,
        unlisted: String?
    ) async -> LinkTuningOutcome<LinkPHYState> {
        guard request.preferTwoMegabitPHY else { return .notSupported("no PHY change requested") }
        if let unlisted { return .notSupported(unlisted) }
        switch report.localFeatures {
        case .done(let bits) where bits & Self.twoMegabitPHYBit == 0:
            return .notSupported("our controller lacks LE 2M PHY (LE feature bit 8)")
        case .done: break
        default: return .notSupported("our LE features are unknown (see local features)")
        }
        switch report.remoteFeatures {
        case .done(let bits) where bits & Self.twoMegabitPHYBit == 0:
            return .notSupported("the peer lacks LE 2M PHY (remote LE feature bit 8)")
        case .done: break
        default: return .notSupported("the peer's LE features are unknown (see remote features)")
        }
        let command = HCILESetPHY(
            connectionHandle: target.connectionHandle,
            allPHYs: 0,
            txPHYs: 0x02,
            rxPHYs: 0x02,
            phyOptions: 0
        )
        let outcome = await run(target, command, awaiting: HCILEPHYUpdateCompleteEvent.self, timeout: eventTimeout)
        return outcome.map { event in
            event.status == .success
                ? .done(LinkPHYState(tx: event.txPHY, rx: event.rxPHY))
                : .refused(opcode: HCILESetPHY.opcode, status: event.status)
        }
    }

    /// Sends `command`, maps a refused answer, and decodes the awaited event.
    private func run<Command: HCICommandPacket, Event: WireCodable & LinkTuningEvent>(
        _ target: some LinkTuningTarget,
        _ command: Command,
        awaiting _: Event.Type,
        timeout: Duration
    ) async -> EventOutcome<Event> {
        let answer: HCICommandResult
        let packet: [UInt8]?
        do throws(LinkTuningFailure) {
            (answer, packet) = try await target.exchange(command, awaiting: Event.subeventCode, eventTimeout: timeout)
        } catch {
            return .failed(error.description)
        }
        guard let status = answer.hciStatus else { return .failed("empty answer to 0x\(hex4(Command.opcode))") }
        guard status == .success else { return .refused(opcode: Command.opcode, status: status) }
        guard let packet else { return .acceptedWithoutEvent(timeout) }
        do {
            return .event(try Event(bytes: packet))
        } catch {
            return .failed("undecodable event \(packet): \(error)")
        }
    }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// An LE Meta event link tuning waits on (its subevent code is generated).
protocol LinkTuningEvent { static var subeventCode: UInt8 { get } }
extension HCILEReadRemoteFeaturesCompleteEvent: LinkTuningEvent {}
extension HCILEConnectionUpdateCompleteEvent: LinkTuningEvent {}
extension HCILEDataLengthChangeEvent: LinkTuningEvent {}
extension HCILEPHYUpdateCompleteEvent: LinkTuningEvent {}

/// A step's event, or how it ended without one.
enum EventOutcome<Event> {
    case event(Event)
    case acceptedWithoutEvent(Duration)
    case refused(opcode: UInt16, status: HCIStatus)
    case failed(String)

    func map<Value>(_ transform: (Event) -> LinkTuningOutcome<Value>) -> LinkTuningOutcome<Value> {
        switch self {
        case .event(let event): transform(event)
        case .acceptedWithoutEvent(let waited): .acceptedWithoutEvent(waited: waited)
        case .refused(let opcode, let status): .refused(opcode: opcode, status: status)
        case .failed(let why): .failed(why)
        }
    }
}
