internal import CBlueZ
internal import Glibc

extension H4StreamTransport {
    /// Opens a UART in raw mode at `baudRate` (one of `TransportSpec.baudRates`), 8N1, with RTS/CTS
    /// hardware flow control when `flowControl` is set.
    public static func openSerial(
        device: String,
        baudRate: Int,
        flowControl: Bool
    ) throws(BLELinuxError) -> H4StreamTransport {
        guard let speed = TTY.speed(baudRate) else {
            throw BLELinuxError(.system, "\(device): \(baudRate) is not a baud rate termios supports")
        }
        let endpoint = TransportSpec.serial(device: device, baudRate: baudRate, flowControl: flowControl).description
        do throws(SystemError) {
            let tty = try TTY.open(device: device, speed: speed, flowControl: flowControl, exclusive: false)
            let channel = try DescriptorChannel(socket: tty, name: "h4-serial", receiveCapacity: 4096, isSocket: false)
            return H4StreamTransport(endpoint: endpoint, channel: channel)
        } catch {
            throw serialError(error, device: device)
        }
    }

    static func serialError(_ error: SystemError, device: String) -> BLELinuxError {
        TTY.openError(error, device: device, what: "the controller", holders: "perhaps btattach or hciattach")
    }
}
