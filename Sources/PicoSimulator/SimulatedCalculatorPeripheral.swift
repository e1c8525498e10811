public import BLEHost
import BLEWire
import Synchronization

/// An ESP32-style calculator peripheral served through a `GATTServer` on one ATT bearer: write a
/// request to its one characteristic, get the answer as a notification (`CalculatorAnswer` documents
/// both encodings).
///
/// | service | characteristic | properties |
/// |---|---|---|
/// | GAP `1800` | Device Name `2A00` = "ESP32 Calculator" | read |
/// | calculator `ca1c0000-…` | calculator `ca1c0001-…` | read, write, write without response, notify, indicate |
///
/// The calculator characteristic has a Characteristic User Description that spells the protocol out
/// (longer than 22 bytes, so reading it at the default MTU takes Read Blob). A read returns the last
/// answer (`0` with status ok before the first request). Every write is accepted, whatever its length:
/// bad input is answered with an error status, never refused or dropped. The answer goes out as a
/// notification, as an indication (in order, each confirmed before the next), or both, as the client
/// subscribed.
public final class SimulatedCalculatorPeripheral: Sendable {
    public static let deviceName = "ESP32 Calculator"
    public static let userDescription =
        "Calculator: write 3 bytes [operand1, operand2, operator] (unsigned operands, operator ASCII + - * /); "
        + "the answer is notified as int32 little-endian + status (0 ok, 1 divide by zero, 2 unknown operator, "
        + "3 wrong length)."

    public let server: GATTServer
    public let genericAccess: GATTServiceHandles
    public let calculator: GATTServiceHandles
    /// The value handle of the calculator characteristic.
    public let calculatorHandle: UInt16
    private let memory = AnswerMemory()

    /// Serves a new calculator on `transport` (not yet started). Call `start()` next.
    public init(transport: any ATTTransport) {
        let bearer = ATTBearer(transport: transport)
        let database = GATTDatabase()
        let memory = self.memory
        // Indications wait for their confirmation: one task sends them in the order the answers came.
        let (indications, indicationQueue) = AsyncStream.makeStream(of: (handle: UInt16, value: [UInt8]).self)
        genericAccess = database.addGenericAccess(deviceName: Self.deviceName)
        calculator = database.addService(
            GATTServiceDefinition(
                uuid: .calculatorService,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: .calculatorCharacteristic,
                        properties: [.read, .write, .writeWithoutResponse, .notify, .indicate],
                        descriptors: [
                            GATTDescriptorDefinition(
                                uuid: .characteristicUserDescription,
                                value: Array(Self.userDescription.utf8)
                            )
                        ],
                        storesWrites: false,
                        onRead: { memory.answer.withLock { $0 }.bytes },
                        onWrite: { write in
                            let answer = CalculatorAnswer(request: write.value)
                            memory.answer.withLock { $0 = answer }
                            _ = try? write.server.notify(write.handle, value: answer.bytes)
                            if write.server.isSubscribed(write.handle, .indications) {
                                indicationQueue.yield((write.handle, answer.bytes))
                            }
                            return nil
                        }
                    )
                ]
            )
        )
        calculatorHandle = calculator.valueHandle(of: .calculatorCharacteristic) ?? 0
        let server = GATTServer(database: database, bearer: bearer)
        self.server = server
        Task {
            for await indication in indications {
                _ = try? await server.indicate(indication.handle, value: indication.value)
            }
        }
        bearer.onClose { _ in indicationQueue.finish() }
    }

    /// The answer to the last request.
    public var lastAnswer: CalculatorAnswer { memory.answer.withLock { $0 } }

    /// Starts serving.
    public func start() throws(GATTError) { try server.bearer.start() }

    /// Closes the link (the client sees a disconnect).
    public func close() { server.bearer.close() }
}

/// The last answer, shared by the peripheral and its database's handlers.
private final class AnswerMemory: Sendable {
    let answer = Mutex(CalculatorAnswer(result: 0, status: .ok))
}
