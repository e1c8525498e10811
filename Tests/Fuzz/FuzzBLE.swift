// libFuzzer entry point over the BLE side, built by Tools/fuzz-ble.sh: Sources/BLEWire as a module of its
// own, then the sources of Sources/BLEHost together with this file (not part of the package build).
//
// The input's first byte picks a part (its value modulo 9); the rest of the input is that part's:
//   0 ATT PDUs, 1 HCI events, 2 HCI commands, 3 LE signaling commands: decoded from arbitrary bytes, and
//     whatever decodes must encode to bytes that decode to the same value (and encode alike again); ATT
//     PDUs also through their borrowing views, Command Complete events also through their command's
//     return parameters, Number Of Completed Packets also through the host's in-place view;
//   4 AdvertisingData decode → encode → decode, and the UUID and address text parsers;
//   5 BTSnoopRecord.parseFile on arbitrary bytes; parsed records written again parse the same;
//   6 H4Framer fed whole, in chunks of one size and in chunks of changing sizes: same packets, same error;
//   7 L2CAPReassembler against a plain model, fed ACL fragments made from the input;
//   8 HCIHost's receive path with a live connection carrying an ATT bearer with a GATT client and server
//     (`HostSession`).
// It traps (fatalError, with the reason) when two paths that must agree do not. FUZZ_BLE_PART=names (of
// att, event, command, signaling, advertising, btsnoop, h4, reassembly, host, separated by commas) keeps a
// run to those parts: inputs of the others are rejected (-1: not added to the corpus).

import BLEWire
import Coordination
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBLE(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    FuzzPart.countAtExit()
    guard let selector = input.first else { return 0 }
    let part = FuzzPart.allCases[Int(selector) % FuzzPart.allCases.count]
    if let only = FuzzPart.only, !only.contains(part) {
        FuzzPart.rejected += 1
        return -1
    }
    FuzzPart.executed[part.index] += 1
    let body = UnsafeRawBufferPointer(rebasing: input[1...])
    switch part {
    case .att: fuzzATT(body)
    case .event: fuzzHCIEvent(body)
    case .command: _ = roundTrip(body, as: HCICommand.self)
    case .signaling: _ = roundTrip(body, as: L2CAPSignalingCommand.self)
    case .advertising: fuzzAdvertising(body)
    case .btsnoop: fuzzBTSnoop(body)
    case .h4: fuzzH4(body)
    case .reassembly: fuzzReassembly(body)
    case .host: HostSession.shared.run(body)
    }
    return 0
}

enum FuzzPart: String, CaseIterable {
    case att, event, command, signaling, advertising, btsnoop, h4, reassembly, host

    var index: Int { Self.allCases.firstIndex(of: self)! }

    /// Inputs run per part, and inputs rejected for FUZZ_BLE_PART (libFuzzer counts both as executions);
    /// printed at exit (libFuzzer calls the entry point from one thread).
    nonisolated(unsafe) static var executed = [Int](repeating: 0, count: allCases.count)
    nonisolated(unsafe) static var rejected = 0

    /// Registers the printing of the counts at exit, once.
    static func countAtExit() { _ = registered }

    private static let registered: Void = {
        _ = atexit {
            let counts = FuzzPart.allCases.map { "\($0.rawValue) \(FuzzPart.executed[$0.index])" }
            let line = "fuzz-ble: inputs per part: \(counts.joined(separator: ", ")); rejected \(FuzzPart.rejected)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
    }()

    /// The parts FUZZ_BLE_PART names (separated by commas), if set.
    static let only: Set<FuzzPart>? = {
        guard let value = getenv("FUZZ_BLE_PART") else { return nil }
        return Set(
            String(cString: value).split(separator: ",").map { name in
                guard let part = FuzzPart(rawValue: String(name)) else {
                    fatalError("FUZZ_BLE_PART: \(name) names no part")
                }
                return part
            }
        )
    }()
}

/// Stops the run with `message` when `condition` is false (fatalError prints it in optimised builds too).
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
}

/// Reads a fuzz input front to back; past the end it reads zeros and empty slices.
struct FuzzCursor {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    /// The next `count` bytes, fewer at the end.
    mutating func take(_ count: Int) -> UnsafeRawBufferPointer {
        let taken = min(count, bytes.count - min(offset, bytes.count))
        defer { offset += taken }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + taken])
    }

    /// A length byte, then that many bytes.
    mutating func counted() -> [UInt8] { Array(take(Int(byte()))) }
}

// MARK: - Parts 0–3: the generated decoders

/// Decodes a `Value` from the start of `bytes`; if that works, the value must encode to bytes that decode
/// exactly to it, and encode alike again. Errors must point inside the input.
@discardableResult
func roundTrip<Value: WireCodable>(_ bytes: UnsafeRawBufferPointer, as _: Value.Type) -> Value? {
    var reader = ByteReader(bytes)
    let value: Value
    do {
        value = try Value(parsing: &reader)
    } catch {
        fuzzCheck(
            (0...bytes.count).contains(error.offset),
            "\(Value.self): error \(error) located outside the \(bytes.count) input bytes"
        )
        return nil
    }
    fuzzCheck(reader.offset <= bytes.count, "\(Value.self): the decoder read past the input")
    let encoded = value.encodedBytes
    let again: Value
    do {
        again = try Value(bytes: encoded)
    } catch {
        fatalError("\(Value.self) \(value) encodes to [\(hexString(encoded))], which does not decode: \(error)")
    }
    fuzzCheck(again == value, "\(Value.self) \(value) encodes to [\(hexString(encoded))], which decodes to \(again)")
    fuzzCheck(again.encodedBytes == encoded, "\(Value.self) \(value) does not encode alike twice")
    return value
}

func fuzzATT(_ pdu: UnsafeRawBufferPointer) {
    roundTrip(pdu, as: ATTPDU.self)
    // The borrowing views the receive paths use must read a whole PDU as the owning decoders do.
    compareView(pdu, ATTFindByTypeValueRequest.self) { (pdu) throws(DecodeError) in
        try ATTFindByTypeValueRequest.View(pdu: pdu).owned
    }
    compareView(pdu, ATTReadResponse.self) { (pdu) throws(DecodeError) in try ATTReadResponse.View(pdu: pdu).owned }
    compareView(pdu, ATTReadBlobResponse.self) { (pdu) throws(DecodeError) in
        try ATTReadBlobResponse.View(pdu: pdu).owned
    }
    compareView(pdu, ATTReadMultipleResponse.self) { (pdu) throws(DecodeError) in
        try ATTReadMultipleResponse.View(pdu: pdu).owned
    }
    compareView(pdu, ATTWriteRequest.self) { (pdu) throws(DecodeError) in try ATTWriteRequest.View(pdu: pdu).owned }
    compareView(pdu, ATTWriteCommand.self) { (pdu) throws(DecodeError) in try ATTWriteCommand.View(pdu: pdu).owned }
    compareView(pdu, ATTPrepareWriteRequest.self) { (pdu) throws(DecodeError) in
        try ATTPrepareWriteRequest.View(pdu: pdu).owned
    }
    compareView(pdu, ATTPrepareWriteResponse.self) { (pdu) throws(DecodeError) in
        try ATTPrepareWriteResponse.View(pdu: pdu).owned
    }
    compareView(pdu, ATTHandleValueNotification.self) { (pdu) throws(DecodeError) in
        try ATTHandleValueNotification.View(pdu: pdu).owned
    }
    compareView(pdu, ATTHandleValueIndication.self) { (pdu) throws(DecodeError) in
        try ATTHandleValueIndication.View(pdu: pdu).owned
    }
}

/// A view and the owning decoder of the whole PDU both fail, or both give the same value.
func compareView<Value: WireCodable>(
    _ pdu: UnsafeRawBufferPointer,
    _: Value.Type,
    _ view: (UnsafeRawBufferPointer) throws(DecodeError) -> Value
) {
    let owned = try? Value(bytes: pdu)
    let viewed = try? view(pdu)
    fuzzCheck(
        owned == viewed,
        "\(Value.self) of [\(hexString(pdu))]: the view reads \(String(describing: viewed)), "
            + "the decoder \(String(describing: owned))"
    )
}

func fuzzHCIEvent(_ packet: UnsafeRawBufferPointer) {
    if case .commandComplete(let complete) = roundTrip(packet, as: HCIEvent.self),
        let parameters = returnParametersType(complete.commandOpcode)
    {
        roundTripReturnParameters(of: complete, as: parameters)
    }
    // Number Of Completed Packets as the host reads it (in place) and as the decoder does.
    guard packet.first == HCINumberOfCompletedPacketsEvent.eventCode else { return }
    var reader = ByteReader(packet)
    let decoded = try? HCINumberOfCompletedPacketsEvent(parsing: &reader)
    let view = try? HCINumberOfCompletedPacketsEvent.View(event: packet)
    let viewed = view.map { view in
        (0..<view.count).map { index in
            HCICompletedPackets(connectionHandle: view[index].0, numCompletedPackets: view[index].1)
        }
    }
    fuzzCheck(
        viewed == decoded?.handles,
        "Number Of Completed Packets [\(hexString(packet))]: the view reads \(String(describing: viewed)), "
            + "the decoder \(String(describing: decoded?.handles))"
    )
}

func roundTripReturnParameters<Parameters: WireCodable>(
    of event: HCICommandCompleteEvent,
    as _: Parameters.Type
) {
    guard let parameters = try? event.returnParameters(as: Parameters.self) else { return }
    let encoded = parameters.encodedBytes
    let again = try? Parameters(bytes: encoded)
    fuzzCheck(again == parameters, "\(Parameters.self) \(parameters) encodes to [\(hexString(encoded))]")
}

/// The return parameters of the command `opcode`, for the commands that have them.
func returnParametersType(_ opcode: UInt16) -> (any WireCodable.Type)? {
    switch opcode {
    case HCISetEventMask.opcode: HCISetEventMask.ReturnParameters.self
    case HCIReset.opcode: HCIReset.ReturnParameters.self
    case HCISetEventMaskPage2.opcode: HCISetEventMaskPage2.ReturnParameters.self
    case HCIReadLocalVersionInformation.opcode: HCIReadLocalVersionInformation.ReturnParameters.self
    case HCIReadLocalSupportedCommands.opcode: HCIReadLocalSupportedCommands.ReturnParameters.self
    case HCIReadLocalSupportedFeatures.opcode: HCIReadLocalSupportedFeatures.ReturnParameters.self
    case HCIReadBufferSize.opcode: HCIReadBufferSize.ReturnParameters.self
    case HCIReadBDADDR.opcode: HCIReadBDADDR.ReturnParameters.self
    case HCIReadRSSI.opcode: HCIReadRSSI.ReturnParameters.self
    case HCILESetEventMask.opcode: HCILESetEventMask.ReturnParameters.self
    case HCILEReadBufferSize.opcode: HCILEReadBufferSize.ReturnParameters.self
    case HCILEReadBufferSizeV2.opcode: HCILEReadBufferSizeV2.ReturnParameters.self
    case HCILEReadLocalSupportedFeatures.opcode: HCILEReadLocalSupportedFeatures.ReturnParameters.self
    case HCILESetRandomAddress.opcode: HCILESetRandomAddress.ReturnParameters.self
    case HCILESetScanParameters.opcode: HCILESetScanParameters.ReturnParameters.self
    case HCILESetScanEnable.opcode: HCILESetScanEnable.ReturnParameters.self
    case HCILECreateConnectionCancel.opcode: HCILECreateConnectionCancel.ReturnParameters.self
    case HCILERemoteConnectionParameterRequestReply.opcode:
        HCILERemoteConnectionParameterRequestReply.ReturnParameters.self
    case HCILERemoteConnectionParameterRequestNegativeReply.opcode:
        HCILERemoteConnectionParameterRequestNegativeReply.ReturnParameters.self
    case HCILESetDataLength.opcode: HCILESetDataLength.ReturnParameters.self
    case HCILEReadSuggestedDefaultDataLength.opcode: HCILEReadSuggestedDefaultDataLength.ReturnParameters.self
    case HCILEWriteSuggestedDefaultDataLength.opcode: HCILEWriteSuggestedDefaultDataLength.ReturnParameters.self
    case HCILEReadPHY.opcode: HCILEReadPHY.ReturnParameters.self
    case HCILESetDefaultPHY.opcode: HCILESetDefaultPHY.ReturnParameters.self
    case HCILESetExtendedScanParameters.opcode: HCILESetExtendedScanParameters.ReturnParameters.self
    case HCILESetExtendedScanEnable.opcode: HCILESetExtendedScanEnable.ReturnParameters.self
    default: nil
    }
}

// MARK: - Part 4: advertising data and text

func fuzzAdvertising(_ bytes: UnsafeRawBufferPointer) {
    if let decoded = try? AdvertisingData(bytes: bytes) { checkReencoding(decoded) }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes.prefix(48)), as: UTF8.self)
    if let uuid = BluetoothUUID(text) {
        fuzzCheck(BluetoothUUID(uuid.description) == uuid, "UUID \(uuid) from \"\(text)\" does not parse back")
    }
    if let address = BluetoothAddress(text) {
        fuzzCheck(
            BluetoothAddress(address.description)?.value == address.value,
            "address \(address) from \"\(text)\" does not parse back"
        )
    }
}

/// `decoded` encoded and decoded again: every field as it was, except what one AD structure cannot hold
/// (a name of more than 254 UTF-8 bytes comes back cut at a character boundary and marked shortened, a
/// UUID list of more than 254 bytes comes back cut after its last whole UUID that fits); and that value
/// survives another encode → decode.
func checkReencoding(_ decoded: AdvertisingData) {
    let encoded = decoded.encodedBytes
    let again: AdvertisingData
    do {
        again = try AdvertisingData(bytes: encoded)
    } catch {
        fatalError("advertising data \(decoded) encodes to [\(hexString(encoded))], which does not decode: \(error)")
    }
    let third = try? AdvertisingData(bytes: again.encodedBytes)
    fuzzCheck(third == again, "advertising data \(again) does not survive a second encode → decode")
    let limit = AdvertisingData.maximumFieldLength
    fuzzCheck(
        again.flags == decoded.flags && again.txPowerLevel == decoded.txPowerLevel
            && again.appearance == decoded.appearance && again.serviceData == decoded.serviceData
            && again.manufacturerData == decoded.manufacturerData && again.other == decoded.other,
        "advertising data \(decoded) comes back as \(again)"
    )
    if let name = decoded.localName, name.utf8.count > limit {
        let cut = again.localName ?? ""
        fuzzCheck(
            cut.utf8.count <= limit && name.starts(with: cut) && !again.isLocalNameComplete,
            "a name of \(name.utf8.count) bytes comes back as \(String(describing: again.localName))"
        )
    } else {
        fuzzCheck(
            again.localName == decoded.localName && again.isLocalNameComplete == decoded.isLocalNameComplete,
            "name \(String(describing: decoded.localName)) comes back as \(String(describing: again.localName))"
        )
    }
    for width in [2, 4, 16] {
        let sent = decoded.serviceUUIDs.filter { uuidWidth($0) == width }
        let back = again.serviceUUIDs.filter { uuidWidth($0) == width }
        fuzzCheck(
            back == Array(sent.prefix(limit / width)),
            "\(sent.count) UUIDs of \(width) bytes come back as \(back.count): \(back)"
        )
    }
}

/// The octets a UUID takes in an advertising UUID list: its shortest form.
func uuidWidth(_ uuid: BluetoothUUID) -> Int { uuid.uuid16 != nil ? 2 : uuid.uuid32 != nil ? 4 : 16 }

// MARK: - Part 5: btsnoop files

func fuzzBTSnoop(_ file: UnsafeRawBufferPointer) {
    guard let records = try? BTSnoopRecord.parseFile(file) else { return }
    var writer = ByteWriter(capacity: file.count + 16)
    BTSnoopRecord.encodeFileHeader(into: &writer)
    for record in records { record.encode(into: &writer) }
    let again = writer.bytes.withUnsafeBytes { try? BTSnoopRecord.parseFile($0) }
    // Written records state the length they hold as the original one.
    let expected = records.map { record in
        var record = record
        record.originalLength = record.packet.count + 1
        return record
    }
    fuzzCheck(again == expected, "\(records.count) btsnoop records written again parse as \(again?.count ?? -1)")
}

// MARK: - Part 6: the H4 framer

struct FramedH4: Equatable {
    var packets: [[UInt8]] = []
    var error: H4FramingError?
    var pending = 0
}

/// Input: a limit byte (below 0x80 the largest packet HCI allows, else a small limit), a chunk size byte,
/// a pattern byte for the changing chunk sizes, then the stream.
func fuzzH4(_ input: UnsafeRawBufferPointer) {
    var cursor = FuzzCursor(input)
    let limitByte = cursor.byte()
    let limit = limitByte < 0x80 ? H4Framer.largestPacketLength : 4 + Int(limitByte & 0x7F) * 2
    let size = 1 + Int(cursor.byte() % 64)
    let pattern = UInt64(cursor.byte()) &* 0x9E37_79B9_7F4A_7C15
    let stream = cursor.take(input.count)
    let whole = frameH4(stream, limit: limit) { _ in stream.count }
    let chunked = frameH4(stream, limit: limit) { _ in size }
    let varied = frameH4(stream, limit: limit) { step in 1 + Int((pattern >> (UInt64(step) % 12 * 5)) % 40) }
    fuzzCheck(whole == chunked, "H4 in chunks of \(size) frames differently: \(whole) vs \(chunked)")
    fuzzCheck(whole == varied, "H4 in chunks of changing sizes frames differently: \(whole) vs \(varied)")
    for packet in whole.packets {
        let type = HCIPacketIndicator(rawValue: packet[0])!
        let header = H4Framer.headerLength(type)
        fuzzCheck(packet.count - 1 >= header && packet.count - 1 <= limit, "H4 packet of \(packet.count - 1) bytes")
        let length = packet.withUnsafeBytes {
            header + H4Framer.payloadLength(type, header: UnsafeRawBufferPointer(rebasing: $0[1...]))
        }
        fuzzCheck(length == packet.count - 1, "H4 packet of \(packet.count - 1) bytes announces \(length)")
    }
}

func frameH4(_ stream: UnsafeRawBufferPointer, limit: Int, chunk: (Int) -> Int) -> FramedH4 {
    var framer = H4Framer(maximumPacketLength: limit)
    var result = FramedH4()
    var start = 0
    var step = 0
    while start < stream.count {
        let end = min(stream.count, start + chunk(step))
        do {
            try framer.push(UnsafeRawBufferPointer(rebasing: stream[start..<end])) { type, packet in
                result.packets.append([type.rawValue] + Array(packet))
            }
        } catch {
            result.error = error
            return result
        }
        start = end
        step += 1
    }
    result.pending = framer.pendingByteCount
    return result
}

// MARK: - Part 7: L2CAP reassembly

struct ReassembledFrame: Equatable {
    let channel: UInt16
    let payload: [UInt8]
}

/// What `L2CAPReassembler` must do, written plainly: gather from a start fragment until the basic
/// header's length is there, drop what cannot belong to a frame.
struct ReassemblyModel {
    var gathered: [UInt8]?

    mutating func push(_ data: [UInt8], first: Bool, deliver: (ReassembledFrame) -> Void) -> Bool {
        var clean = true
        if first {
            if gathered != nil { clean = false }
            gathered = []
        } else if gathered == nil {
            return false
        }
        gathered?.append(contentsOf: data)
        guard let bytes = gathered, bytes.count >= 4 else { return clean }
        let total = 4 + (Int(bytes[0]) | Int(bytes[1]) << 8)
        guard bytes.count >= total else { return clean }
        gathered = nil
        deliver(ReassembledFrame(channel: UInt16(bytes[2]) | UInt16(bytes[3]) << 8, payload: Array(bytes[4..<total])))
        return clean && bytes.count == total
    }
}

/// Input: fragments, each a control byte (bit 7 start of a frame, bit 6 repeat the data as often as the
/// next byte says, bits 0–5 the data length) and its data.
func fuzzReassembly(_ input: UnsafeRawBufferPointer) {
    let reassembler = L2CAPReassembler()
    var model = ReassemblyModel()
    var cursor = FuzzCursor(input)
    while !cursor.isAtEnd {
        let control = cursor.byte()
        var fragment = Array(cursor.take(Int(control & 0x3F)))
        if control & 0x40 != 0 {
            let times = Int(cursor.byte())
            fragment = Array([[UInt8]](repeating: fragment, count: times).joined())
        }
        let first = control & 0x80 != 0
        var delivered: [ReassembledFrame] = []
        let clean = fragment.withUnsafeBytes { data in
            reassembler.push(data, first: first) { channel, payload in
                delivered.append(ReassembledFrame(channel: channel, payload: Array(payload)))
            }
        }
        var expected: [ReassembledFrame] = []
        let expectedClean = model.push(fragment, first: first) { expected.append($0) }
        fuzzCheck(
            delivered == expected && clean == expectedClean,
            "reassembly of a \(fragment.count)-byte fragment (start \(first)): \(delivered) \(clean), "
                + "expected \(expected) \(expectedClean)"
        )
    }
}

// MARK: - Part 8: HCIHost with a live connection

/// Runs the jobs of Swift's global concurrent executor on the fuzzer's thread, when the host driver pumps
/// (installed with swift_task_enqueueGlobal_hook): the host's tasks run between the packets of an input,
/// in a fixed order, on no other thread. Sleeps still wait on Dispatch's timers; when one ends, its task
/// comes here too.
final class FuzzExecutor: TaskExecutor {
    static let shared = FuzzExecutor()
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) { append(UnownedJob(job)) }

    func append(_ job: UnownedJob) { jobs.withLock { $0.append(job) } }

    /// Runs the jobs queued so far, in order; false when there were none.
    func runQueued() -> Bool {
        let batch = jobs.withLock { jobs in
            defer { jobs = [] }
            return jobs
        }
        for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        return !batch.isEmpty
    }

    private typealias EnqueueOriginal = @convention(thin) (UnownedJob) -> Void
    private typealias EnqueueHook = @convention(thin) (UnownedJob, EnqueueOriginal) -> Void

    /// From now on, every job for the global executor comes here.
    static func install() {
        guard let hook = dlsym(nil, "swift_task_enqueueGlobal_hook") else {
            fatalError("no swift_task_enqueueGlobal_hook in the Swift runtime")
        }
        hook.assumingMemoryBound(to: EnqueueHook?.self).pointee = { job, _ in FuzzExecutor.shared.append(job) }
    }
}

/// The deadline clock of one input's bearer: still until the input advances it.
final class FuzzATTClock: TimeSource, @unchecked Sendable {
    private(set) var now: Duration = .zero
    var wallTime: Double { 0 }
    private var wakes: [(deadline: Duration, body: @Sendable () -> Void)] = []

    func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) {
        wakes.append((deadline, body))
    }

    func advance(by duration: Duration) {
        now += duration
        let due = wakes.filter { $0.deadline <= now }
        wakes.removeAll { $0.deadline <= now }
        for wake in due { wake.body() }
    }
}

/// The controller of the host part: answers every command as a willing controller would (unless `silent`),
/// completes every ACL packet at once, checks what the host sends, and keeps its own packets to the host
/// until the driver delivers them. Only the fuzzer's thread uses it (the host's tasks run there too).
final class FuzzController: HCITransport, @unchecked Sendable {
    /// The handle of the links this controller makes (an input's own LE Connection Complete may give
    /// another).
    static let handle: UInt16 = 0x0040
    static let aclLength: UInt16 = 27
    static let aclCount: UInt8 = 4
    static let commands: [any HCICommandPacket.Type] = [
        HCIReset.self, HCIReadLocalVersionInformation.self, HCIReadLocalSupportedCommands.self,
        HCIReadLocalSupportedFeatures.self, HCIReadBDADDR.self, HCISetEventMask.self, HCILESetEventMask.self,
        HCILEReadBufferSize.self, HCILEReadBufferSizeV2.self, HCIReadBufferSize.self,
        HCILEReadLocalSupportedFeatures.self, HCILESetScanParameters.self, HCILESetScanEnable.self,
        HCILECreateConnection.self, HCILECreateConnectionCancel.self, HCIDisconnect.self, HCILEConnectionUpdate.self,
        HCILEWriteSuggestedDefaultDataLength.self, HCILERemoteConnectionParameterRequestReply.self,
        HCILERemoteConnectionParameterRequestNegativeReply.self,
    ]

    private var receive: (@Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void)?
    /// Commands go unanswered while set.
    var silent = false
    private var outgoing: [(HCIPacketIndicator, [UInt8])] = []
    private var head = 0
    /// The handles of the links the host has been told of: LE Connection Complete given, Disconnection
    /// Complete not yet.
    private var liveHandles: Set<UInt16> = []

    func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        switch type {
        case .command:
            let command = try? HCICommand(bytes: packet)
            fuzzCheck(command != nil, "the host sent a command that does not decode: [\(hexString(packet))]")
            let opcode = UInt16(packet[0]) | UInt16(packet[1]) << 8
            if !silent { answer(opcode, Array(packet[3...])) }
        case .acl:
            var reader = ByteReader(packet)
            let header = try? HCIACLHeader(parsing: &reader)
            let length = packet.count - 4
            guard let header, header.length == length, length > 0, length <= Int(Self.aclLength),
                liveHandles.contains(where: { $0 & 0x0FFF == header.handle })
            else {
                fatalError("the host sent an ACL packet the controller cannot take: [\(hexString(packet))]")
            }
            event(
                HCINumberOfCompletedPacketsEvent(handles: [
                    HCICompletedPackets(connectionHandle: header.handle, numCompletedPackets: 1)
                ])
            )
        default:
            fatalError("the host sent a \(type) packet")
        }
    }

    func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        self.receive = receive
    }

    func close() {}

    /// Hands `packet` to the host now, as the transport's reader thread would.
    func deliver(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) {
        if type == .event { noteLinks(packet) }
        receive?(type, packet)
    }

    /// Follows the links an event makes or ends.
    private func noteLinks(_ event: UnsafeRawBufferPointer) {
        var reader = ByteReader(event)
        let made: (HCIStatus, UInt16)?
        switch try? HCIEvent(parsing: &reader) {
        case .leConnectionComplete(let complete): made = (complete.status, complete.connectionHandle)
        case .leEnhancedConnectionComplete(let complete): made = (complete.status, complete.connectionHandle)
        case .leEnhancedConnectionCompleteV2(let complete): made = (complete.status, complete.connectionHandle)
        case .disconnectionComplete(let complete) where complete.status == .success:
            liveHandles.remove(complete.connectionHandle)
            return
        default: return
        }
        if let (status, handle) = made, status == .success { liveHandles.insert(handle) }
    }

    func deliver(_ type: HCIPacketIndicator, _ packet: [UInt8]) { packet.withUnsafeBytes { deliver(type, $0) } }

    /// Delivers the oldest packet the controller has for the host; false when there is none.
    func deliverNext() -> Bool {
        guard head < outgoing.count else { return false }
        let (type, packet) = outgoing[head]
        head += 1
        if head == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            head = 0
        }
        deliver(type, packet)
        return true
    }

    func event(_ event: some WireCodable) { outgoing.append((.event, event.encodedBytes)) }

    private func complete(_ opcode: UInt16, _ parameters: [UInt8]) {
        event(HCICommandCompleteEvent(numHCICommandPackets: 1, commandOpcode: opcode, returnParameters: parameters))
    }

    private func status(_ opcode: UInt16) {
        event(HCICommandStatusEvent(status: .success, numHCICommandPackets: 1, commandOpcode: opcode))
    }

    static func connectionComplete(_ status: HCIStatus, peerType: UInt8, peer: BluetoothAddress) -> some WireCodable {
        HCILEConnectionCompleteEvent(
            status: status,
            connectionHandle: status == .success ? handle : 0,
            role: 0,
            peerAddressType: peerType,
            peerAddress: peer,
            connectionInterval: 6,
            peripheralLatency: 0,
            supervisionTimeout: 200,
            centralClockAccuracy: 0
        )
    }

    private func answer(_ opcode: UInt16, _ parameters: [UInt8]) {
        switch opcode {
        case HCIReadLocalVersionInformation.opcode:
            complete(
                opcode,
                HCIReadLocalVersionInformation.ReturnParameters(
                    status: .success,
                    hciVersion: 13,
                    hciSubversion: 1,
                    lmpVersion: 13,
                    companyIdentifier: 0xFFFF,
                    lmpSubversion: 1
                ).encodedBytes
            )
        case HCIReadLocalSupportedCommands.opcode:
            complete(opcode, [0] + HCISupportedCommands(supporting: Self.commands).octets)
        case HCIReadLocalSupportedFeatures.opcode, HCILEReadLocalSupportedFeatures.opcode:
            complete(opcode, [UInt8](repeating: 0, count: 9))
        case HCIReadBDADDR.opcode:
            complete(opcode, [0, 0x01, 0x53, 0x00, 0x5E, 0x00, 0x00])
        case HCILEReadBufferSizeV2.opcode:
            complete(opcode, [0, UInt8(Self.aclLength), 0, Self.aclCount, 0, 0, 0])
        case HCILECreateConnection.opcode:
            status(opcode)
            event(
                Self.connectionComplete(
                    .success,
                    peerType: parameters[5],
                    peer: BluetoothAddress(wireBytes: parameters[6..<12])
                )
            )
        case HCILECreateConnectionCancel.opcode:
            complete(opcode, [0])
            event(Self.connectionComplete(.unknownConnectionIdentifier, peerType: 0, peer: BluetoothAddress(value: 0)))
        case HCIDisconnect.opcode:
            status(opcode)
            let handle = UInt16(parameters[0]) | UInt16(parameters[1]) << 8
            event(HCIDisconnectionCompleteEvent(status: .success, connectionHandle: handle, reason: 0x16))
        case HCILEConnectionUpdate.opcode:
            status(opcode)
        case HCILERemoteConnectionParameterRequestReply.opcode,
            HCILERemoteConnectionParameterRequestNegativeReply.opcode:
            complete(opcode, [0] + parameters.prefix(2))
        default:
            complete(opcode, [0])
        }
    }
}

/// The host part. One `HCIHost` serves the whole run (a fresh one per input would spend most of the time
/// initialising it): started once on a `FuzzController`. Each input gets a fresh link on the same handle,
/// with a fresh ATT bearer, GATT client, GATT server and database; its records are fed to the host as the
/// controller's packets, the host's tasks running after each; at its end the controller answers whatever
/// is still pending and the link goes down, so the host carries little from one input to the next (its
/// counters, and its ACL flow control with every credit back, which is checked).
///
/// Records, each an op byte (low 3 bits the kind) and its data:
///   0, 7 an HCI event, length byte and bytes (bit 3 clear: its parameter length set to fit);
///   1    an L2CAP frame on the live handle in one ACL packet; bits 3–4 the channel (ATT, signaling, ATT,
///        or two more bytes), bit 7 a repeat count byte follows the length byte and the data;
///   2    the same frame cut into ACL fragments of 1 to 64 bytes (a size byte after it);
///   3    an ACL packet exactly as given (any handle, any lengths);
///   4    ACL data on the live handle with the boundary flag in bits 3–4;
///   5    an action (bits 3–5): connect when no link is up, start scanning, stop scanning, advance the ATT
///        clock by 31 s, toggle a silent controller, queue a client read, send an indication, send a
///        notification and a Write Command;
///   6    a command, SCO or ISO packet (bits 3–4), which the host must ignore.
final class HostSession: @unchecked Sendable {
    static let shared = HostSession()

    static let peer = BluetoothAddress(value: 0xF0_11_22_33_44_55, type: .random)
    let controller = FuzzController()
    let host: HCIHost
    /// Tasks of this driver not finished yet: every one must end by the end of its input.
    private var openTasks = 0
    private var link: Link?

    /// The live link and what runs on it.
    struct Link {
        let connection: HCIConnection
        let bearer: ATTBearer
        let client: GATTClient
        let server: GATTServer
        let clock: FuzzATTClock
    }

    init() {
        FuzzExecutor.install()
        host = HCIHost(transport: controller)
        spawn { [host] in _ = try? await host.start() }
        pump()
        fuzzCheck(host.controller != nil && openTasks == 0, "the host did not start on the fake controller")
    }

    func run(_ input: UnsafeRawBufferPointer) {
        connect()
        pump()
        fuzzCheck(link != nil, "the host did not connect")
        var cursor = FuzzCursor(input)
        while !cursor.isAtEnd {
            record(&cursor)
            pump()
        }
        finish()
    }

    /// Runs the host's tasks and delivers the controller's packets until neither has anything left.
    func pump() {
        var rounds = 0
        while FuzzExecutor.shared.runQueued() || controller.deliverNext() {
            rounds += 1
            fuzzCheck(rounds < 100_000, "the host keeps itself busy")
        }
    }

    private func spawn(_ body: @escaping @Sendable () async -> Void) {
        openTasks += 1
        Task {
            await body()
            self.openTasks -= 1
        }
    }

    private func connect() {
        guard host.connections.isEmpty, host.state.withLock({ $0.pendingConnect == nil }) else { return }
        spawn { [self] in
            guard let connection = try? await host.connect(to: Self.peer, timeout: .seconds(1)) else { return }
            attach(connection)
        }
    }

    private func attach(_ connection: HCIConnection) {
        let clock = FuzzATTClock()
        let bearer = ATTBearer(transport: connection.att, preferredMTU: 247, clock: clock)
        let client = GATTClient(bearer: bearer)
        let server = GATTServer(database: Self.database(), bearer: bearer)
        do {
            try bearer.start()
        } catch {
            fatalError("the bearer did not start: \(error)")
        }
        link = Link(connection: connection, bearer: bearer, client: client, server: server, clock: clock)
        spawn { await Self.exercise(client) }
    }

    /// What the client does on each link: MTU, discovery, subscriptions and reads of what it found, then
    /// requests of every other kind. It ends when its requests fail for good (the link is gone).
    private static func exercise(_ client: GATTClient) async {
        let bearer = client.bearer
        _ = try? await bearer.exchangeMTU()
        var characteristics: [GATTCharacteristic] = []
        if let profile = try? await client.discoverProfile() {
            characteristics = profile.services.flatMap { $0.characteristics.map(\.characteristic) }
        }
        for characteristic in characteristics.prefix(3) where bearer.closeReason == nil {
            _ = try? await client.subscribe(to: characteristic) { _ in }
            _ = try? await client.readLongValue(characteristic.valueHandle)
        }
        guard bearer.closeReason == nil else { return }
        _ = try? await client.readMultipleVariable([0x0003, 0x0005])
        _ = try? await client.readByType(BluetoothUUID(0x2A00))
        _ = try? await client.discoverPrimaryServices(uuid: BluetoothUUID(0x180D))
        _ = try? await client.reliableWrite([(0x0003, [1, 2, 3]), (0x0005, [UInt8](repeating: 7, count: 40))])
        _ = try? await client.enableServiceChanged()
        _ = try? await client.write([0x01], to: 0x0003)
    }

    /// The database each link's server serves: a device name, and a serial-port-like service.
    private static func database() -> GATTDatabase {
        let database = GATTDatabase()
        database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1800),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: [.read], value: [0x68, 0x63])
                ]
            )
        )
        database.addService(
            GATTServiceDefinition(
                uuid: BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E),
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(high: 0x6E40_0002_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E),
                        properties: [.write, .writeWithoutResponse],
                        maximumLength: 244
                    ),
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(high: 0x6E40_0003_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E),
                        properties: [.read, .notify, .indicate],
                        value: [UInt8](repeating: 0x5A, count: 300),
                        descriptors: [GATTDescriptorDefinition(uuid: BluetoothUUID(0x2901), value: [0x54, 0x58])]
                    ),
                ]
            )
        )
        return database
    }

    private func record(_ cursor: inout FuzzCursor) {
        let op = cursor.byte()
        switch op & 7 {
        case 0, 7:
            var event = cursor.counted()
            if op & 0x08 == 0, event.count >= 2 { event[1] = UInt8(event.count - 2) }
            controller.deliver(.event, event)
        case 1, 2:
            let channel: UInt16 =
                switch op >> 3 & 3 {
                case 0, 2: 0x0004
                case 1: 0x0005
                default: cursor.uint16()
                }
            var payload = cursor.counted()
            if op & 0x80 != 0 { payload = Array([[UInt8]](repeating: payload, count: Int(cursor.byte())).joined()) }
            let frame = L2CAPBasicHeader(length: UInt16(payload.count), channelID: channel).encodedBytes + payload
            if op & 7 == 1 {
                acl(boundary: .firstFlushable, frame[...])
            } else {
                let size = 1 + Int(cursor.byte() % 64)
                for start in stride(from: 0, to: frame.count, by: size) {
                    acl(
                        boundary: start == 0 ? .firstFlushable : .continuing,
                        frame[start..<min(start + size, frame.count)]
                    )
                }
            }
        case 3:
            controller.deliver(.acl, cursor.counted())
        case 4:
            acl(boundary: HCIACLHeader.PacketBoundary(rawValue: op >> 3 & 3)!, cursor.counted()[...])
        case 5:
            action(op >> 3 & 7)
        default:
            let types: [HCIPacketIndicator] = [.command, .sco, .iso, .sco]
            controller.deliver(types[Int(op >> 3 & 3)], cursor.counted())
        }
    }

    private func acl(boundary: HCIACLHeader.PacketBoundary, _ data: ArraySlice<UInt8>) {
        let handle = link?.connection.handle ?? FuzzController.handle
        let header = HCIACLHeader(handle: handle, packetBoundary: boundary, length: UInt16(data.count))
        controller.deliver(.acl, header.encodedBytes + data)
    }

    private func action(_ code: UInt8) {
        switch code {
        case 0:
            connect()
        case 1:
            spawn { [host] in _ = try? await host.startScanning() }
        case 2:
            spawn { [host] in try? await host.stopScanning() }
        case 3:
            link?.clock.advance(by: .seconds(31))
        case 4:
            controller.silent.toggle()
        case 5:
            guard let client = link?.client else { return }
            spawn { _ = try? await client.read(0x0003) }
        case 6:
            guard let bearer = link?.bearer else { return }
            spawn { try? await bearer.indicate(handle: 0x0005, value: [1, 2, 3]) }
        default:
            guard let link else { return }
            try? link.bearer.notify(handle: 0x0005, value: [UInt8](repeating: 0xA5, count: 40))
            _ = [UInt8](repeating: 0x3C, count: 20).withUnsafeBytes {
                try? link.client.sendWriteCommand($0, to: 0x0003)
            }
        }
    }

    /// The end of an input: the controller answers what is still pending, fails a connect still under way,
    /// scanning stops, and every link goes down. Then nothing of this driver may still wait, and every ACL
    /// credit must be back.
    private func finish() {
        controller.silent = false
        var scanStopped = false
        for _ in 0..<256 {
            pump()
            let (command, connecting, scanning) = host.state.withLock {
                ($0.pendingCommand?.opcode, $0.pendingConnect != nil, $0.scan != nil)
            }
            if let command {
                controller.deliver(
                    .event,
                    HCICommandStatusEvent(status: .success, numHCICommandPackets: 1, commandOpcode: command)
                        .encodedBytes
                )
            } else if connecting {
                controller.deliver(
                    .event,
                    FuzzController.connectionComplete(.unknownConnectionIdentifier, peerType: 0, peer: Self.peer)
                        .encodedBytes
                )
            } else if scanning && !scanStopped {
                scanStopped = true
                spawn { [host] in try? await host.stopScanning() }
            } else if let connection = host.connections.first {
                controller.deliver(
                    .event,
                    HCIDisconnectionCompleteEvent(status: .success, connectionHandle: connection.handle, reason: 0x13)
                        .encodedBytes
                )
            } else {
                break
            }
        }
        pump()
        fuzzCheck(host.connections.isEmpty, "a link is still up at the end of the input")
        fuzzCheck(openTasks == 0, "\(openTasks) tasks still wait after the link went down")
        let flow = host.state.withLock { $0.flow }
        fuzzCheck(
            flow.free == flow.capacity && !flow.hasQueued && flow.inFlight.values.allSatisfy { $0 == 0 },
            "ACL credits not all back with no link up: \(flow.free) of \(flow.capacity) free"
        )
        link = nil
    }
}
