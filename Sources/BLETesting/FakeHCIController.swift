public import BLEHost
public import BLEWire
import Dispatch
import Synchronization

/// An in-memory controller for `HCIHost` tests and benchmarks: answers the initialisation commands, connects on LE
/// Create Connection, records every packet the host sends, and delivers its own packets on a serial
/// queue (the stand-in for a transport's reader thread), never inside `send`.
public final class FakeHCIController: HCITransport {
    public struct Options: Sendable {
        public init(
            commands: [any HCICommandPacket.Type] = FakeHCIController.baseCommands + [HCILEReadBufferSizeV2.self],
            leLength: UInt16 = 27,
            leCount: UInt8 = 4,
            sharedLength: UInt16 = 310,
            sharedCount: UInt16 = 10,
            autoComplete: Bool = true,
            silent: Set<UInt16> = [],
            completesConnections: Bool = true,
            address: BluetoothAddress = BluetoothAddress(value: 0x00_00_5E_00_53_01),
            tuning: FakeTuning = FakeTuning(),
            records: Bool = true
        ) {
            self.commands = commands
            self.leLength = leLength
            self.leCount = leCount
            self.sharedLength = sharedLength
            self.sharedCount = sharedCount
            self.autoComplete = autoComplete
            self.silent = silent
            self.completesConnections = completesConnections
            self.address = address
            self.tuning = tuning
            self.records = records
        }

        public var commands: [any HCICommandPacket.Type]
        public var leLength: UInt16
        public var leCount: UInt8
        public var sharedLength: UInt16
        public var sharedCount: UInt16
        /// Answer ACL packets with Number Of Completed Packets at once.
        public var autoComplete: Bool
        /// Opcodes the controller never answers.
        public var silent: Set<UInt16>
        /// Answer LE Create Connection with a Connection Complete.
        public var completesConnections: Bool
        public var address: BluetoothAddress
        /// How the link-tuning commands are answered (FakeHCIController+Tuning).
        public var tuning: FakeTuning
        /// Keep every command and ACL packet the host sends (for `commands(_:)` and `aclPackets`); off
        /// for a flood, so that only the host's memory grows.
        public var records: Bool
    }

    public static let baseCommands: [any HCICommandPacket.Type] = [
        HCIReset.self, HCIReadLocalVersionInformation.self, HCIReadLocalSupportedCommands.self,
        HCIReadLocalSupportedFeatures.self, HCIReadBDADDR.self, HCISetEventMask.self, HCILESetEventMask.self,
        HCILEReadBufferSize.self, HCIReadBufferSize.self, HCILEReadLocalSupportedFeatures.self,
        HCILESetScanParameters.self, HCILESetScanEnable.self, HCILECreateConnection.self,
        HCILECreateConnectionCancel.self, HCIDisconnect.self,
    ]

    public let options: Options
    private let queue = DispatchQueue(label: "fake-controller")
    private struct State {
        var receive: (@Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void)?
        var closed: (@Sendable (TransportError) -> Void)?
        var commands: [(opcode: UInt16, parameters: [UInt8])] = []
        var acl: [[UInt8]] = []
        var nextHandle: UInt16 = 0x0040
    }
    private let state = Mutex(State())

    public init(_ options: Options = Options()) { self.options = options }

    public var commandOpcodes: [UInt16] { state.withLock { $0.commands.map(\.opcode) } }
    public func commands(_ opcode: UInt16) -> [[UInt8]] {
        state.withLock { $0.commands.filter { $0.opcode == opcode }.map(\.parameters) }
    }
    public var aclPackets: [[UInt8]] { state.withLock { $0.acl } }

    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        let bytes = Array(packet)
        switch type {
        case .command:
            let opcode = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
            if options.records { state.withLock { $0.commands.append((opcode, Array(bytes[3...]))) } }
            if !options.silent.contains(opcode) { answer(opcode, Array(bytes[3...])) }
        case .acl:
            if options.records { state.withLock { $0.acl.append(bytes) } }
            if options.autoComplete {
                let handle = (UInt16(bytes[0]) | UInt16(bytes[1]) << 8) & 0x0FFF
                completePackets(handle: handle, count: 1)
            }
        default:
            break
        }
    }

    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        state.withLock {
            $0.receive = receive
            $0.closed = closed
        }
    }

    public func close() {
        let closed = state.withLock { state in
            defer { state.closed = nil }
            return state.closed
        }
        if let closed { queue.async { closed(.closed) } }
    }

    /// Delivers a packet from the controller (asynchronously, in order).
    public func deliver(_ type: HCIPacketIndicator, _ bytes: [UInt8]) {
        let receive = state.withLock { $0.receive }
        queue.async { bytes.withUnsafeBytes { receive?(type, $0) } }
    }

    /// Waits until every packet delivered so far has been handled.
    public func settle() { queue.sync {} }

    public func event<Event: WireCodable>(_ event: Event) { deliver(.event, event.encodedBytes) }

    public func completePackets(handle: UInt16, count: UInt16) {
        event(
            HCINumberOfCompletedPacketsEvent(handles: [
                HCICompletedPackets(connectionHandle: handle, numCompletedPackets: count)
            ])
        )
    }

    /// An ACL packet to the host with an explicit boundary flag.
    public func acl(handle: UInt16, first: Bool, _ data: [UInt8]) {
        let header = HCIACLHeader(
            handle: handle,
            packetBoundary: first ? .firstFlushable : .continuing,
            length: UInt16(data.count)
        )
        deliver(.acl, header.encodedBytes + data)
    }

    /// A whole L2CAP frame on `channel` in one ACL packet, whatever its size.
    public func l2cap(handle: UInt16, channel: UInt16, _ payload: [UInt8]) {
        acl(
            handle: handle,
            first: true,
            L2CAPBasicHeader(length: UInt16(payload.count), channelID: channel).encodedBytes + payload
        )
    }

    public func complete(_ opcode: UInt16, _ parameters: [UInt8]) {
        event(HCICommandCompleteEvent(numHCICommandPackets: 1, commandOpcode: opcode, returnParameters: parameters))
    }

    public func status(_ opcode: UInt16, _ status: HCIStatus = .success) {
        event(HCICommandStatusEvent(status: status, numHCICommandPackets: 1, commandOpcode: opcode))
    }

    private func answer(_ opcode: UInt16, _ parameters: [UInt8]) {
        let ok = HCIStatus.success
        switch opcode {
        case HCIReadLocalVersionInformation.opcode:
            complete(
                opcode,
                HCIReadLocalVersionInformation.ReturnParameters(
                    status: ok,
                    hciVersion: 13,
                    hciSubversion: 1,
                    lmpVersion: 13,
                    companyIdentifier: 0xFFFF,
                    lmpSubversion: 1
                ).encodedBytes
            )
        case HCIReadLocalSupportedCommands.opcode:
            complete(opcode, [0] + HCISupportedCommands(supporting: options.commands).octets)
        case HCIReadLocalSupportedFeatures.opcode:
            complete(opcode, [0] + [UInt8](repeating: 0, count: 8))
        case HCILEReadLocalSupportedFeatures.opcode:
            complete(opcode, [0] + (0..<8).map { UInt8(truncatingIfNeeded: options.tuning.localFeatures >> ($0 * 8)) })
        case HCILEReadRemoteFeatures.opcode, HCILESetDataLength.opcode, HCILESetPHY.opcode:
            answerTuning(opcode, parameters)
        case HCIReadBDADDR.opcode:
            complete(opcode, [0] + options.address.wireBytes)
        case HCILEReadBufferSizeV2.opcode:
            complete(
                opcode,
                HCILEReadBufferSizeV2.ReturnParameters(
                    status: ok,
                    leACLDataPacketLength: options.leLength,
                    totalNumLEACLDataPackets: options.leCount,
                    isoDataPacketLength: 0,
                    totalNumISODataPackets: 0
                ).encodedBytes
            )
        case HCILEReadBufferSize.opcode:
            complete(
                opcode,
                HCILEReadBufferSize.ReturnParameters(
                    status: ok,
                    leACLDataPacketLength: options.leLength,
                    totalNumLEACLDataPackets: options.leCount
                ).encodedBytes
            )
        case HCIReadBufferSize.opcode:
            complete(
                opcode,
                HCIReadBufferSize.ReturnParameters(
                    status: ok,
                    aclDataPacketLength: options.sharedLength,
                    synchronousDataPacketLength: 0,
                    totalNumACLDataPackets: options.sharedCount,
                    totalNumSynchronousDataPackets: 0
                ).encodedBytes
            )
        case HCILECreateConnection.opcode, HCILEExtendedCreateConnection.opcode:
            status(opcode)
            guard options.completesConnections else { return }
            let peerOffset = opcode == HCILECreateConnection.opcode ? 5 : 2
            let handle = state.withLock { state in
                defer { state.nextHandle += 1 }
                return state.nextHandle
            }
            let peer = BluetoothAddress(wireBytes: parameters[peerOffset + 1..<peerOffset + 7])
            event(
                HCILEConnectionCompleteEvent(
                    status: ok,
                    connectionHandle: handle,
                    role: 0,
                    peerAddressType: parameters[peerOffset],
                    peerAddress: peer,
                    connectionInterval: 6,
                    peripheralLatency: 0,
                    supervisionTimeout: 200,
                    centralClockAccuracy: 0
                )
            )
        case HCILECreateConnectionCancel.opcode:
            complete(opcode, [0])
            event(
                HCILEConnectionCompleteEvent(
                    status: .unknownConnectionIdentifier,
                    connectionHandle: 0,
                    role: 0,
                    peerAddressType: 0,
                    peerAddress: BluetoothAddress(value: 0),
                    connectionInterval: 0,
                    peripheralLatency: 0,
                    supervisionTimeout: 0,
                    centralClockAccuracy: 0
                )
            )
        case HCILEConnectionUpdate.opcode:
            answerTuning(opcode, parameters)
        case HCIDisconnect.opcode:
            status(opcode)
            if opcode == HCIDisconnect.opcode {
                let handle = UInt16(parameters[0]) | UInt16(parameters[1]) << 8
                event(HCIDisconnectionCompleteEvent(status: ok, connectionHandle: handle, reason: 0x16))
            }
        case HCILERemoteConnectionParameterRequestReply.opcode,
            HCILERemoteConnectionParameterRequestNegativeReply.opcode:
            complete(opcode, [0] + parameters[0..<2])
        default:
            complete(opcode, [0])
        }
    }
}
