import Coordination
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `SimulatedPico` on a pseudo-terminal, as an EmStat Pico on a USB-UART cable: a host opens the
/// terminal's slave side (or `linkPath`, a symbolic link to it kept as `/dev/serial/by-id/…` keeps one to
/// a `ttyUSBn`) as it would the cable's port.
///
/// - The line: the slave is set raw at `baudRate`. When a host sets another rate, the simulator acts as
///   a UART sampling at the wrong rate does: what the host sends is not understood, and what the device
///   sends arrives as bytes outside printable ASCII.
/// - Paced (`paced`): the device's output leaves at the line rate of `baudRate` (8N1: ten bits a byte),
///   blocking the script as a full UART transmit buffer does, and what the host sends is taken at that
///   rate too; unpaced, both go as fast as the pseudo-terminal carries them.
/// - Unplugging: `unplug()` closes the terminal (the host's reads fail, as when a cable is pulled) and
///   removes `linkPath`; `plug()` opens a new terminal (never the one just closed: another `/dev/pts/N`)
///   and points `linkPath` at it.
///   The device itself goes on: a script it runs when unplugged keeps running, its output lost.
public final class SimulatedPicoPTY: Sendable {
    /// The device.
    public let pico: SimulatedPico
    /// The symbolic link a host opens (nil: only the slave's own path).
    public var linkPath: String? { link.withLock { $0 } }
    private let link: Mutex<String?>
    /// The line rate the device's UART runs at.
    public let baudRate: Int
    /// Whether the line rate is kept (see the type's comment).
    public let paced: Bool

    /// Why a pseudo-terminal could not be made.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with the system's words.
        public let description: String
    }

    /// One plugged-in terminal: the master the simulator reads and writes, the slave it keeps open so
    /// that the master never sees a hang-up between hosts, and the pipe that wakes its reader.
    private final class Plug: Sendable {
        let master: CInt
        let slave: CInt
        /// The wake-up pipe: [read end, write end].
        let wake: [CInt]
        let slavePath: String
        let unplugged = Atomic<Bool>(false)
        let readerDone = DispatchSemaphore(value: 0)
        /// Held while the device's output is written to `master`, so that `unplug` never closes it under
        /// a write (the descriptor's number could be another file's by the next write).
        let writing = NSLock()

        init(master: CInt, slave: CInt, wake: [CInt], slavePath: String) {
            self.master = master
            self.slave = slave
            self.wake = wake
            self.slavePath = slavePath
        }
    }

    /// `TIOCSPTLCK` and `TIOCGPTN` (asm-generic/ioctls.h; ABI: `_IOW('T', 0x31, int)`,
    /// `_IOR('T', 0x30, unsigned int)`), which Swift cannot import from their macros.
    private static let unlockRequest: UInt = 0x4004_5431
    private static let numberRequest: UInt = 0x8004_5430

    private let current = Mutex<Plug?>(nil)
    /// The slave of the last plug, which the next one must not reuse.
    private let previousSlavePath = Mutex<String?>(nil)
    /// When the line is next free to send (seconds on the monotonic clock), for paced output.
    private let lineFree = Mutex<Double>(0)

    /// Serves `pico` (started here) once `plug()` is called.
    public init(pico: SimulatedPico, linkPath: String? = nil, baudRate: Int = 230_400, paced: Bool = false) {
        self.pico = pico
        link = Mutex(linkPath)
        self.baudRate = baudRate
        self.paced = paced
        pico.setMaximumNotificationPayload(64)
        pico.start()
    }

    /// The slave's path while plugged in (`/dev/pts/N`).
    public var slavePath: String? { current.withLock { $0?.slavePath } }

    /// What a host opens: `linkPath`, or the slave's path.
    public var path: String? { linkPath ?? slavePath }

    /// Opens a new terminal, sets it raw at `baudRate`, points `linkPath` at it (at `newLink` from now
    /// on, when given: a cable that comes back under another name) and starts serving. Returns the
    /// slave's path. Does nothing (but return it) when already plugged in.
    @discardableResult
    public func plug(as newLink: String? = nil) throws(Failure) -> String {
        if let path = slavePath { return path }
        if let newLink { link.withLock { $0 = newLink } }
        let linkPath = self.linkPath
        var (master, slavePath) = try Self.openMaster()
        // Plugged in again, a cable comes back as another device (ttyUSB1 after ttyUSB0): the terminal
        // just closed would be handed out again, so it is taken while a second one is opened.
        if slavePath == previousSlavePath.withLock({ $0 }) {
            let (other, otherPath) = try Self.openMaster()
            close(master)
            (master, slavePath) = (other, otherPath)
        }
        previousSlavePath.withLock { $0 = slavePath }
        let slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard slave >= 0 else {
            let failure = Self.failure("open \(slavePath)")
            close(master)
            throw failure
        }
        var attributes = termios()
        tcgetattr(slave, &attributes)
        cfmakeraw(&attributes)
        if let speed = Self.speed(baudRate) {
            cfsetispeed(&attributes, speed)
            cfsetospeed(&attributes, speed)
        }
        tcsetattr(slave, TCSANOW, &attributes)
        var wakePipe: [CInt] = [0, 0]
        guard pipe(&wakePipe) == 0 else {
            let failure = Self.failure("pipe2")
            close(master)
            close(slave)
            throw failure
        }
        for end in wakePipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let plug = Plug(master: master, slave: slave, wake: wakePipe, slavePath: slavePath)
        if let linkPath {
            unlink(linkPath)
            guard symlink(slavePath, linkPath) == 0 else {
                let failure = Self.failure("symlink \(linkPath)")
                close(master)
                close(slave)
                for end in plug.wake { close(end) }
                throw failure
            }
        }
        current.withLock { $0 = plug }
        pico.attach(output: { [self] bytes in send(bytes, on: plug) })
        Threads.start(name: "sim-pty") { [self] in
            read(from: plug)
            plug.readerDone.signal()
        }
        return slavePath
    }

    /// Pulls the cable: the terminal is closed (a host's reads on it fail), `linkPath` removed. The device
    /// goes on without a host.
    public func unplug() {
        guard
            let plug = current.withLock({ current -> Plug? in
                defer { current = nil }
                return current
            })
        else { return }
        plug.unplugged.store(true, ordering: .sequentiallyConsistent)
        pico.detach()
        var one: UInt8 = 1
        _ = write(plug.wake[1], &one, 1)
        plug.readerDone.wait()
        if let linkPath { unlink(linkPath) }
        plug.writing.lock()
        close(plug.slave)
        close(plug.master)
        for end in plug.wake { close(end) }
        plug.writing.unlock()
    }

    /// A new terminal's master and its slave's path: `posix_openpt`, `unlockpt` and `ptsname` as the C
    /// library does them on Linux's devpts.
    private static func openMaster() throws(Failure) -> (CInt, String) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard master >= 0 else { throw failure("open /dev/ptmx") }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard ioctl(master, unlockRequest, &unlock) == 0, ioctl(master, numberRequest, &number) == 0 else {
            let failure = failure("ioctl on /dev/ptmx")
            close(master)
            throw failure
        }
        return (master, "/dev/pts/\(number)")
    }

    /// Unplugs and stops the device.
    public func stop() {
        unplug()
        pico.stop()
    }

    /// Whether the host's side runs at the device's rate.
    private func rateMatches(_ plug: Plug) -> Bool {
        var attributes = termios()
        guard tcgetattr(plug.slave, &attributes) == 0, let speed = Self.speed(baudRate) else { return true }
        return cfgetospeed(&attributes) == speed
    }

    /// Host → device, until unplugged: what the master reads goes to the device's UART, at the line rate
    /// when paced; garbled when the host's rate is not the device's.
    private func read(from plug: Plug) {
        var fds = [
            pollfd(fd: plug.master, events: Int16(POLLIN), revents: 0),
            pollfd(fd: plug.wake[0], events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64)
        let secondsPerByte = 10.0 / Double(baudRate)
        while !plug.unplugged.load(ordering: .sequentiallyConsistent) {
            fds[0].revents = 0
            fds[1].revents = 0
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 { return }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(plug.master, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                // No slave open anywhere cannot happen (this side keeps one); anything else ends the plug.
                return
            }
            if rateMatches(plug) {
                buffer.withUnsafeBytes { pico.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            } else {
                // A UART at the wrong rate: the device hears noise and answers it (an error line, as to
                // an unknown command), which the host hears as noise too.
                let noise = [UInt8](repeating: 0xF8, count: count + 6)
                noise.withUnsafeBytes { send($0, on: plug) }
            }
            if paced { Self.sleep(seconds: Double(count) * secondsPerByte) }
        }
    }

    /// Device → host: `bytes` to the master, at the line rate when paced; with the high bit set when the
    /// host's rate is not the device's. Waits (in `poll`) while the terminal is full, until unplugged.
    private func send(_ bytes: UnsafeRawBufferPointer, on plug: Plug) {
        guard !plug.unplugged.load(ordering: .relaxed) else { return }
        var out = Array(bytes)
        if !rateMatches(plug) { out = out.map { $0 | 0x80 } }
        if paced {
            let now = Self.monotonicSeconds()
            let due = lineFree.withLock { free -> Double in
                free = max(free, now) + Double(out.count) * 10.0 / Double(baudRate)
                return free
            }
            // The UART's transmit buffer holds a few bytes ahead of the line; past that the sender waits.
            let ahead = due - now - 64 * 10.0 / Double(baudRate)
            if ahead > 0 { Self.sleep(seconds: ahead) }
        }
        plug.writing.lock()
        defer { plug.writing.unlock() }
        var offset = 0
        while offset < out.count, !plug.unplugged.load(ordering: .relaxed) {
            let written = out.withUnsafeBytes { Glibc.write(plug.master, $0.baseAddress! + offset, out.count - offset) }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                var fds = [
                    pollfd(fd: plug.master, events: Int16(POLLOUT), revents: 0),
                    pollfd(fd: plug.wake[0], events: Int16(POLLIN), revents: 0),
                ]
                _ = poll(&fds, 2, 100)
            } else {
                return
            }
        }
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var interval = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&interval, &left) != 0 && errno == EINTR { interval = left }
    }

    private static func failure(_ call: String) -> Failure {
        Failure(description: "\(call): \(String(cString: strerror(errno)))")
    }

    /// The termios speed of the rates a Pico's UART may be set to.
    static func speed(_ rate: Int) -> speed_t? {
        let table: [Int: Int32] = [
            9600: B9600, 19200: B19200, 38400: B38400, 57600: B57600, 115_200: B115200, 230_400: B230400,
            460_800: B460800, 921_600: B921600,
        ]
        return table[rate].map { speed_t($0) }
    }
}
