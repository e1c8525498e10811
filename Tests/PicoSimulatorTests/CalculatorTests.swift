import BLEHost
import BLELinux
import BLEWire
import Testing

@testable import PicoSimulator

/// The ESP32-style calculator through a real `GATTClient` over the in-process transport: discovery,
/// every operator, the error statuses, reads and the long user description.
@Suite struct CalculatorTests {
    /// A client connected to a fresh calculator, offering `mtu`.
    struct Link {
        let client: GATTClient
        let peripheral: SimulatedCalculatorPeripheral
        let characteristic: GATTCharacteristic

        static func open(mtu: Int = ATTBearer.maximumMTU) async throws -> Link {
            let (host, device) = try UnixSocketATTTransport.makePair()
            let peripheral = SimulatedCalculatorPeripheral(transport: device)
            try peripheral.start()
            let client = try await GATTClient.connect(transport: host, mtu: mtu)
            let characteristic = try await client.characteristic(
                .calculatorCharacteristic,
                inService: .calculatorService
            )
            return Link(client: client, peripheral: peripheral, characteristic: characteristic)
        }

        func close() {
            client.bearer.close()
            peripheral.close()
        }

        /// Subscribes, writes each request (acknowledged or not) and collects one answer per request.
        func ask(_ requests: [[UInt8]], withoutResponse: Bool = false) async throws -> [[UInt8]] {
            let stream = try await client.notifications(of: characteristic)
            for request in requests {
                if withoutResponse {
                    try await client.writeWithoutResponse(request, to: characteristic.valueHandle)
                } else {
                    try await client.write(request, to: characteristic)
                }
            }
            var answers: [[UInt8]] = []
            for try await value in stream {
                answers.append(value)
                if answers.count == requests.count { break }
            }
            return answers
        }
    }

    static func request(_ a: UInt8, _ b: UInt8, _ op: Character) -> [UInt8] { [a, b, op.asciiValue ?? 0] }

    /// Little-endian int32 then the status byte.
    static func answer(_ result: Int32, _ status: UInt8 = 0) -> [UInt8] {
        let raw = UInt32(bitPattern: result)
        return [UInt8(raw & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw >> 16 & 0xFF), UInt8(raw >> 24), status]
    }

    @Test func everyOperatorIsAnsweredByNotification() async throws {
        let link = try await Link.open()
        defer { link.close() }
        let answers = try await link.ask([
            Self.request(7, 6, "+"), Self.request(7, 6, "-"), Self.request(0, 255, "-"), Self.request(255, 255, "*"),
            Self.request(7, 2, "/"), Self.request(200, 0, "+"), Self.request(255, 1, "/"),
        ])
        #expect(
            answers == [
                Self.answer(13), Self.answer(1), Self.answer(-255), Self.answer(65025), Self.answer(3),
                Self.answer(200), Self.answer(255),
            ]
        )
        #expect(answers.compactMap { CalculatorAnswer(bytes: $0)?.result } == [13, 1, -255, 65025, 3, 200, 255])
    }

    @Test func writesWithoutResponseAreAnsweredInOrder() async throws {
        let link = try await Link.open()
        defer { link.close() }
        let requests = (0..<50).map { Self.request(UInt8($0), 3, "*") }
        let answers = try await link.ask(requests, withoutResponse: true)
        #expect(answers == (0..<50).map { Self.answer(Int32($0 * 3)) })
    }

    @Test func badInputIsAnsweredWithAnErrorStatusNeverACrash() async throws {
        let link = try await Link.open()
        defer { link.close() }
        let answers = try await link.ask([
            Self.request(9, 0, "/"),  // divide by zero
            Self.request(9, 3, "%"),  // unknown operator
            [1, 2],  // too short
            [1, 2, 0x2B, 0],  // too long
            [],  // empty
            [UInt8](repeating: 0x2B, count: 300),  // a long write (prepared): still one answer
            Self.request(9, 3, "/"),  // and the calculator still works
        ])
        #expect(
            answers == [
                Self.answer(0, 1), Self.answer(0, 2), Self.answer(0, 3), Self.answer(0, 3), Self.answer(0, 3),
                Self.answer(0, 3), Self.answer(3),
            ]
        )
        #expect(
            answers.compactMap { CalculatorAnswer(bytes: $0)?.status } == [
                .divideByZero, .unknownOperator, .wrongLength, .wrongLength, .wrongLength, .wrongLength, .ok,
            ]
        )
    }

    @Test func indicationsComeInOrderEachConfirmed() async throws {
        let link = try await Link.open()
        defer { link.close() }
        let stream = try await link.client.notifications(of: link.characteristic, kind: .indications)
        for a in UInt8(0)..<20 { try await link.client.write(Self.request(a, 2, "+"), to: link.characteristic) }
        var answers: [[UInt8]] = []
        for try await value in stream {
            answers.append(value)
            if answers.count == 20 { break }
        }
        #expect(answers == (0..<20).map { Self.answer(Int32($0 + 2)) })
    }

    @Test func aReadReturnsTheLastAnswer() async throws {
        let link = try await Link.open()
        defer { link.close() }
        #expect(try await link.client.read(link.characteristic) == Self.answer(0))
        // Without a subscription the answer is not notified, but it is kept.
        try await link.client.write(Self.request(12, 12, "*"), to: link.characteristic)
        #expect(try await link.client.read(link.characteristic) == Self.answer(144))
        #expect(link.peripheral.lastAnswer == CalculatorAnswer(result: 144, status: .ok))
    }

    @Test func profileHasGAPWithTheNameAndALongUserDescription() async throws {
        let link = try await Link.open(mtu: ATTBearer.defaultMTU)
        defer { link.close() }
        #expect(link.client.mtu == 23)
        let profile = try await link.client.discoverProfile()
        #expect(profile.services.map(\.service.uuid) == [.genericAccessService, .calculatorService])
        let name = try profile.characteristic(withUUID: .deviceName)
        #expect(try await link.client.read(name) == Array(SimulatedCalculatorPeripheral.deviceName.utf8))
        let description = try profile.attribute(withUUID: .characteristicUserDescription)
        guard case .descriptor(_, let owner) = description else {
            Issue.record("the user description is a descriptor, got \(description)")
            return
        }
        #expect(owner.uuid == .calculatorCharacteristic)
        // Longer than ATT_MTU − 1 = 22: the read goes on with Read Blob until the whole text is in.
        let text = try await link.client.readLong(description.handle)
        #expect(text == Array(SimulatedCalculatorPeripheral.userDescription.utf8))
        #expect(text.count > 100)
    }

    @Test func answerDecodingRejectsWhatIsNotAnAnswer() {
        #expect(CalculatorAnswer(bytes: [1, 2, 3, 4]) == nil)
        #expect(CalculatorAnswer(bytes: [0, 0, 0, 0, 9]) == nil)
        #expect(CalculatorAnswer(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0])?.result == -1)
        for status in CalculatorAnswer.Status.allCases {
            let answer = CalculatorAnswer(result: 5, status: status)
            #expect(CalculatorAnswer(bytes: answer.bytes) == answer)
        }
    }
}
