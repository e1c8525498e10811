public import BLEHost

/// Which way down to the controller: `--transport` or `HCIPICO_TRANSPORT`.
///
/// | form                          | meaning                                                           |
/// |-------------------------------|-------------------------------------------------------------------|
/// | `kernel`, `kernel:hciN`       | the kernel's raw HCI and L2CAP sockets (the default)              |
/// | `user:hciN`                   | the adapter driven directly over `HCI_CHANNEL_USER` (must be down) |
/// | `serial:DEVICE[@BAUD][,rtscts]` | H4 over a UART (default 115200 baud, no flow control)           |
/// | `tcp:HOST:PORT`               | H4 over TCP (`[v6-address]:PORT` for IPv6)                        |
public enum TransportSpec: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's host stack, through its raw HCI and L2CAP sockets (`kernel`, `kernel:hciN`); `adapter` is
    /// nil when none is named, and the kernel then routes each connection.
    case kernel(adapter: HCIAdapterName?)
    /// The adapter taken over on `HCI_CHANNEL_USER` and driven by the user-space host (`user:hciN`); see
    /// `HCIUserChannelSocket`.
    case userChannel(adapter: HCIAdapterName)
    /// H4 over the UART at `device` (an absolute path) at `baudRate` (one of `baudRates`), with RTS/CTS flow
    /// control when `flowControl` is set.
    case serial(device: String, baudRate: Int, flowControl: Bool)
    /// H4 over TCP to `host` (a name, or an IPv4 or IPv6 address without brackets) on `port` (1 to 65535).
    case tcp(host: String, port: UInt16)

    /// The environment variable that gives the transport when `--transport` is absent.
    public static let environmentVariable = "HCIPICO_TRANSPORT"
    /// The accepted forms, for error messages and help.
    public static let acceptedForms = "kernel | kernel:hciN | user:hciN | serial:DEVICE[@BAUD][,rtscts] | tcp:HOST:PORT"
    /// The UART rate, in baud, when `serial:DEVICE` gives none.
    public static let defaultBaudRate = 115_200
    /// The rates termios can set on Linux.
    public static let baudRates: [Int] = [
        1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600,
        1_000_000, 1_152_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000, 3_500_000, 4_000_000,
    ]

    /// The transport from an explicit value, else from `environment[HCIPICO_TRANSPORT]`, else `kernel`.
    public static func resolve(
        _ value: String?,
        environment: [String: String]
    ) throws(ArgumentSyntaxError) -> TransportSpec {
        if let value { return try TransportSpec(parsing: value) }
        if let value = environment[environmentVariable] { return try TransportSpec(parsing: value) }
        return .kernel(adapter: nil)
    }

    /// Parses one of `acceptedForms` (the type's table says what each means).
    ///
    /// - Throws: `ArgumentSyntaxError` locating the first problem: an unknown kind, a malformed adapter name, a
    ///   baud rate termios cannot set, an unknown serial option, a relative device path, a malformed host, or a
    ///   port outside 1...65535.
    public init(parsing text: String) throws(ArgumentSyntaxError) {
        func fail(_ position: Int, _ problem: String) -> ArgumentSyntaxError {
            ArgumentSyntaxError(
                what: "transport",
                text: text,
                position: position,
                problem: problem,
                acceptedForms: Self.acceptedForms
            )
        }
        let scheme = text.prefix { $0 != ":" }
        let hasArgument = scheme.count < text.count
        let argument = hasArgument ? String(text.dropFirst(scheme.count + 1)) : ""
        let argumentStart = scheme.count + 2
        func adapter() throws(ArgumentSyntaxError) -> HCIAdapterName {
            do throws(ArgumentSyntaxError) {
                return try HCIAdapterName(parsing: argument)
            } catch {
                throw fail(argumentStart + error.position - 1, error.problem)
            }
        }
        switch scheme {
        case "kernel":
            self = .kernel(adapter: hasArgument ? try adapter() : nil)
        case "user":
            guard hasArgument else { throw fail(5, "the user channel needs an adapter (user:hci0)") }
            self = .userChannel(adapter: try adapter())
        case "serial":
            self = try Self.serial(argument, at: argumentStart, fail: fail)
        case "tcp":
            self = try Self.tcp(argument, at: argumentStart, fail: fail)
        case "":
            throw fail(1, text.isEmpty ? "the value is empty" : "the transport kind is missing")
        default:
            throw fail(1, "unknown transport kind '\(scheme)'")
        }
    }

    private static func serial(
        _ argument: String,
        at start: Int,
        fail: (Int, String) -> ArgumentSyntaxError
    ) throws(ArgumentSyntaxError) -> TransportSpec {
        var rest = Substring(argument)
        var flowControl = false
        if let comma = rest.lastIndex(of: ",") {
            let option = rest[rest.index(after: comma)...]
            guard option == "rtscts" else {
                throw fail(
                    start + rest.distance(from: rest.startIndex, to: comma) + 1,
                    "unknown serial option '\(option)' (only rtscts)"
                )
            }
            flowControl = true
            rest = rest[..<comma]
        }
        var baudRate = defaultBaudRate
        if let at = rest.lastIndex(of: "@") {
            let text = rest[rest.index(after: at)...]
            let position = start + rest.distance(from: rest.startIndex, to: at) + 1
            guard let rate = Int(text), baudRates.contains(rate) else {
                throw fail(
                    position,
                    "'\(text)' is not a baud rate termios supports (\(baudRates.map(String.init).joined(separator: ", ")))"
                )
            }
            baudRate = rate
            rest = rest[..<at]
        }
        guard !rest.isEmpty else { throw fail(start, "the serial device path is missing") }
        guard rest.hasPrefix("/") else {
            throw fail(start, "the serial device must be an absolute path (/dev/ttyACM0)")
        }
        return .serial(device: String(rest), baudRate: baudRate, flowControl: flowControl)
    }

    private static func tcp(
        _ argument: String,
        at start: Int,
        fail: (Int, String) -> ArgumentSyntaxError
    ) throws(ArgumentSyntaxError) -> TransportSpec {
        guard let colon = argument.lastIndex(of: ":") else {
            throw fail(start, "expected HOST:PORT")
        }
        var host = Substring(argument[..<colon])
        let portText = argument[argument.index(after: colon)...]
        let portPosition = start + argument.distance(from: argument.startIndex, to: colon) + 1
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { throw fail(start, "an IPv6 host is written [address]") }
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            throw fail(start, "write an IPv6 host in brackets: [address]:PORT")
        }
        guard !host.isEmpty else { throw fail(start, "the host is missing") }
        if let bad = host.firstIndex(where: { $0.isWhitespace || $0 == "/" }) {
            // `host` shares the argument's indices: counting from the argument's start keeps a bracketed
            // IPv6 host's opening bracket in the position.
            throw fail(
                start + argument.distance(from: argument.startIndex, to: bad),
                "'\(host[bad])' cannot be in a host name"
            )
        }
        guard let port = UInt16(portText), port != 0 else {
            throw fail(portPosition, "'\(portText)' is not a port number from 1 to 65535")
        }
        return .tcp(host: String(host), port: port)
    }

    /// The value in the form it parses from, so that it parses back to itself; a serial transport always
    /// shows its baud rate, an IPv6 host its brackets.
    public var description: String {
        switch self {
        case .kernel(nil): "kernel"
        case .kernel(let adapter?): "kernel:\(adapter)"
        case .userChannel(let adapter): "user:\(adapter)"
        case .serial(let device, let baudRate, let flowControl):
            "serial:\(device)@\(baudRate)\(flowControl ? ",rtscts" : "")"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        }
    }
}

extension TransportSpec {
    /// Opens the user-space host's transport this value names. The kernel path is not a transport of
    /// whole HCI packets (the kernel keeps ACL and L2CAP), so `.kernel` is refused here.
    public func openHCITransport(tcpTimeout: Duration = .seconds(5)) throws(BLELinuxError) -> any HCITransport {
        switch self {
        case .kernel:
            throw BLELinuxError(.system, "the kernel transport carries ATT over L2CAP sockets, not HCI packets")
        case .userChannel(let adapter):
            return try HCIUserChannelSocket.open(adapter)
        case .serial(let device, let baudRate, let flowControl):
            return try H4StreamTransport.openSerial(device: device, baudRate: baudRate, flowControl: flowControl)
        case .tcp(let host, let port):
            return try H4StreamTransport.connectTCP(host: host, port: port, timeout: tcpTimeout)
        }
    }
}
