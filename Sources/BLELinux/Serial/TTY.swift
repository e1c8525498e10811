internal import Glibc

/// Opening a UART in raw mode: for H4 to a controller, and for an instrument's own UART.
enum TTY {
    /// Opens `device` non-blocking and close-on-exec, raw 8N1 at `baudRate` (`speed(_:)` must know it),
    /// with RTS/CTS when `flowControl` is set. With `exclusive` the port is held for this program alone:
    /// an exclusive `flock` (another program that asks the same gets EWOULDBLOCK) and `TIOCEXCL` (a
    /// further open fails with EBUSY, except for root), and what the port held from before is dropped.
    static func open(
        device: String,
        speed: speed_t,
        flowControl: Bool,
        exclusive: Bool
    ) throws(SystemError) -> OwnedDescriptor {
        let flags = O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC
        var path = Array(device.utf8CString)
        let fd = try path.withUnsafeMutableBufferPointer { path in
            Result { () throws(SystemError) in try blockingSyscall(.open) { system_open(path.baseAddress!, flags) } }
        }.get()
        let tty = OwnedDescriptor(rawValue: fd)
        if exclusive {
            _ = try blockingSyscall(.flock) { system_flock(tty.rawValue, LOCK_EX | LOCK_NB) }
            _ = try blockingSyscall(.ioctl) { system_ioctl(tty.rawValue, UInt(TIOCEXCL), value: 0) }
        }
        var attributes = termios()
        _ = try blockingSyscall(.tcgetattr) { system_tcgetattr(tty.rawValue, &attributes) }
        configure(&attributes, speed: speed, flowControl: flowControl)
        _ = try blockingSyscall(.tcsetattr) { system_tcsetattr(tty.rawValue, TCSANOW, &attributes) }
        if exclusive { _ = try blockingSyscall(.tcflush) { system_tcflush(tty.rawValue, TCIOFLUSH) } }
        return tty
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

    /// The termios speed of `rate` baud; nil for a rate termios has no constant for.
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

    /// A failure to open `device` in words a person can act on; `what` names what should be on the port
    /// (`the controller`), `holders` who might hold it.
    static func openError(_ error: SystemError, device: String, what: String, holders: String) -> BLELinuxError {
        switch error.errno {
        case ENOENT, ENXIO, ENODEV:
            BLELinuxError(
                .noAdapter,
                "no serial device \(device) (\(error.syscall.rawValue): \(error.errnoName)); is \(what) plugged in?",
                underlying: error
            )
        case EACCES, EPERM:
            BLELinuxError(
                .noPermission,
                "permission denied for \(device) (\(error.syscall.rawValue): \(error.errnoName)); run as root or join the group that owns it (usually dialout)",
                underlying: error
            )
        case EBUSY, EWOULDBLOCK:
            BLELinuxError(
                .busy,
                "\(device) is held by another program (\(error.syscall.rawValue): \(error.errnoName)), \(holders)",
                underlying: error
            )
        case ENOTTY:
            BLELinuxError(
                .noAdapter,
                "\(device) is not a serial port (\(error.syscall.rawValue): ENOTTY), so \(what) cannot be there",
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
