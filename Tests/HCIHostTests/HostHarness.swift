import BLEHost
import BLETesting
import BLEWire
import Coordination

/// A started host on a fake controller, connected to one peer.
struct HostHarness {
    let controller: FakeHCIController
    let host: HCIHost
    let info: HCIControllerInfo

    static let peer = BluetoothAddress(value: 0xF0_11_22_33_44_55, type: .random)

    /// `timeout` is the host's command timeout: generous by default, since the whole suite in
    /// parallel on two cores can hold a task back for seconds; tests of timeouts pass a short one, or
    /// a manual `clock`.
    init(
        _ options: FakeHCIController.Options = .init(),
        timeout: Duration = .seconds(10),
        clock: any TimeSource = SystemClock()
    ) async throws {
        controller = FakeHCIController(options)
        var configuration = HCIHostConfiguration()
        configuration.commandTimeout = timeout
        host = HCIHost(transport: controller, configuration: configuration, clock: clock)
        info = try await host.start()
    }

    func connect(_ peer: BluetoothAddress = Self.peer) async throws -> HCIConnection {
        try await host.connect(to: peer, timeout: .seconds(10))
    }

    /// The ACL packets sent so far, split into (handle, boundary flag, payload).
    func sentACL() -> [(handle: UInt16, boundary: UInt8, data: [UInt8])] {
        controller.aclPackets.map { packet in
            let word = UInt16(packet[0]) | UInt16(packet[1]) << 8
            return (word & 0x0FFF, UInt8(word >> 12) & 3, Array(packet[4...]))
        }
    }

    /// The L2CAP frames sent on `handle`, rebuilt from the ACL packets.
    func sentFrames(handle: UInt16) -> [(channel: UInt16, payload: [UInt8])] {
        var frames: [(UInt16, [UInt8])] = []
        var current: [UInt8] = []
        for packet in sentACL() where packet.handle == handle {
            if packet.boundary == 0 { current = [] }
            current += packet.data
            if current.count >= 4 {
                let length = Int(current[0]) | Int(current[1]) << 8
                if current.count == 4 + length {
                    frames.append((UInt16(current[2]) | UInt16(current[3]) << 8, Array(current[4...])))
                    current = []
                }
            }
        }
        return frames
    }
}
