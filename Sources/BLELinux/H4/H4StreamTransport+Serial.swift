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
        guard let speed = speed(baudRate) else {
            throw BLELinuxError(.system, "\(device): \(baudRate) is not a baud rate termios supports")
        }
        let endpoint = TransportSpec.serial(device: device, baudRate: baudRate, flowControl: flowControl).description
        do throws(SystemError) {
            let flags = O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC
            var path = Array(device.utf8CString)
            let fd = try path.withUnsafeMutableBufferPointer { path in
                Result { () throws(SystemError) in try blockingSyscall(.open) { system_open(path.baseAddress!, flags) }
                }
            }.get()
            let tty = OwnedDescriptor(rawValue: fd)
            var attributes = termios()
            _ = try blockingSyscall(.tcgetattr) { system_tcgetattr(tty.rawValue, &attributes) }
            configure(&attributes, speed: speed, flowControl: flowControl)
            _ = try blockingSyscall(.tcsetattr) { system_tcsetattr(tty.rawValue, TCSANOW, &attributes) }
            let channel = try DescriptorChannel(socket: tty, name: "h4-serial", receiveCapacity: 4096, isSocket: false)
            return H4StreamTransport(endpoint: endpoint, channel: channel)
        } catch {
            throw serialError(error, device: device)
        }
    }

    /// Raw 8N1 at `speed`: no echo, no line editing, no translation, reads return what has arrived.
    static func configure(_ attributes: inout termios, speed: speed_t, flowControl: Bool) {
        cfmakeraw(&attributes)
        _ = cfsetispeed(&attributes, speed)
        _ = cfsetospeed(&attributes, speed)
        attributes.c_cflag |= tcflag_t(CLOCAL | CREAD)
        attributes.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
        if flowControl {
            attributes.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            attributes.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        withUnsafeMutableBytes(of: &attributes.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
    }

    static func speed(_ rate: Int) -> speed_t? {
        let table: [Int: Int32] = [
            1200: B1200, 2400: B2400, 4800: B4800, 9600: B9600, 19200: B19200, 38400: B38400, 57600: B57600,
            115_200: B115200, 230_400: B230400, 460_800: B460800, 500_000: B500000, 576_000: B576000,
            921_600: B921600, 1_000_000: B1000000, 1_152_000: B1152000, 1_500_000: B1500000,
            2_000_000: B2000000, 2_500_000: B2500000, 3_000_000: B3000000, 3_500_000: B3500000,
            4_000_000: B4000000,
        ]
        return table[rate].map { speed_t($0) }
    }

    static func serialError(_ error: SystemError, device: String) -> BLELinuxError {
        switch error.errno {
        case ENOENT, ENXIO, ENODEV:
            BLELinuxError(
                .noAdapter,
                "no serial device \(device) (\(error.syscall.rawValue): \(error.errnoName)); is the controller plugged in?",
                underlying: error
            )
        case EACCES, EPERM:
            BLELinuxError(
                .noPermission,
                "permission denied for \(device) (\(error.syscall.rawValue): \(error.errnoName)); run as root or join the group that owns it (usually dialout)",
                underlying: error
            )
        case EBUSY:
            BLELinuxError(
                .busy,
                "\(device) is held by another program (\(error.syscall.rawValue): EBUSY), perhaps btattach or hciattach",
                underlying: error
            )
        case ENOTTY:
            BLELinuxError(
                .noAdapter,
                "\(device) is not a serial port (\(error.syscall.rawValue): ENOTTY), so no controller can be there",
                underlying: error
            )
        case EINVAL where error.syscall != .open:
            BLELinuxError(
                .system,
                "\(device) is not a serial port that takes these settings (\(error.syscall.rawValue): \(error.errnoName))",
                underlying: error
            )
        default:
            BLELinuxError(.system, "\(device): \(error)", underlying: error)
        }
    }
}
