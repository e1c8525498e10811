public import BLEHost

/// How the simulated HM-10 behaves.
public struct HM10Configuration: Sendable {
    /// The largest value either way: ATT_MTU 23 − 3.
    public static let maximumValue = 20

    /// The GAP Device Name.
    public var name: String
    /// The receive FIFO between the radio and the UART, in bytes. The module's figure is not
    /// published; 256 bytes is a small microcontroller buffer that still holds a dozen 20-byte writes.
    public var receiveCapacity: Int
    /// The UART rate in bytes per second (9600 baud ≈ 960 B/s, the module's default), or nil to move
    /// bytes as fast as the host reads the echoes.
    public var uartBytesPerSecond: Int?
    /// FFE1's properties (a test may drop write or write without response to model other modules).
    public var dataProperties: GATTCharacteristicProperties

    public init(
        name: String = "HMSoft",
        receiveCapacity: Int = 256,
        uartBytesPerSecond: Int? = nil,
        dataProperties: GATTCharacteristicProperties = [.read, .write, .writeWithoutResponse, .notify]
    ) {
        self.name = name
        self.receiveCapacity = max(HM10Configuration.maximumValue, receiveCapacity)
        self.uartBytesPerSecond = uartBytesPerSecond.map { max(1, $0) }
        self.dataProperties = dataProperties
    }
}
