import BLEHost
import BLELinux
import Coordination
import Logging
import PicoSimulator
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A simulated Pico in a process of its own, served on a Unix `SOCK_SEQPACKET` socket (`hcipico simulate`):
/// each connection is one link to the same device, so that a script keeps running when the host that
/// started it is killed, and the host's next run finds it (`SimulatorSettings.socket` connects to it).
public final class SimulatorServer: Sendable {
    /// The socket's path.
    public let path: String
    /// The device every link reaches.
    public let pico: SimulatedPico
    private let listener: CInt
    private let logger: Logger
    /// The links served, kept while open (a peripheral's database reaches it weakly).
    private let links = Mutex<[SimulatedPicoPeripheral]>([])

    /// Why the socket could not be served.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with the system's words.
        public let description: String
    }

    /// Listens on `path` (replacing a socket left there, never another kind of file) and starts the
    /// device; `settings` as for a simulator in the host's process, its cell's changes and received
    /// writes reported to `logger` with `trace`.
    public init(path: String, settings: SimulatorSettings, logger: Logger) throws(Failure) {
        var address = try Self.address(path)
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw Failure(description: "\(path): exists and is not a socket")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, CInt(SOCK_SEQPACKET.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "\(path): \(reason)")
        }
        self.path = path
        listener = descriptor
        self.logger = logger
        pico = SimulatedPicos.makeDevice(settings, trace: settings.trace ? logger : nil)
    }

    /// The socket address of `path`, which must be 1 to 107 bytes long.
    static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(description: "\(path): not a usable socket path (1 to 107 bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// A link to the device served on `path`: a connected socket, as a transport.
    static func connect(_ path: String) throws(Failure) -> UnixSocketATTTransport {
        var address = try Self.address(path)
        let descriptor = socket(AF_UNIX, CInt(SOCK_SEQPACKET.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "\(path): \(reason) (is `hcipico simulate` serving it?)")
        }
        do throws(TransportError) {
            return try UnixSocketATTTransport.adopting(descriptor, name: "sim-socket", maximumPDULength: 1024)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }

    /// Serves links until `stop()`, on a thread of its own: each accepted connection gets the device.
    public func start() {
        Threads.start(name: "sim-serve") { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if errno == EINTR { continue }
                    return
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                do {
                    let transport = try UnixSocketATTTransport.adopting(
                        connection,
                        name: "sim-serve",
                        maximumPDULength: 1024
                    )
                    let peripheral = SimulatedPicoPeripheral(transport: transport, pico: pico)
                    try peripheral.start()
                    links.withLock { links in
                        links.removeAll { $0.server.bearer.closeReason != nil }
                        links.append(peripheral)
                    }
                    logger.notice("sim: a host connected")
                } catch {
                    logger.warning("sim: a connection could not be served: \(error)")
                }
            }
        }
    }

    /// Stops listening, removes the socket and stops the device.
    public func stop() {
        shutdown(listener, CInt(SHUT_RDWR))
        close(listener)
        unlink(path)
        for link in links.withLock({ $0 }) { link.close() }
        pico.stop()
    }
}
