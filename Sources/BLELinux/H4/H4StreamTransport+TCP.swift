internal import CBlueZ
internal import Glibc

extension H4StreamTransport {
    /// Connects to `host:port` (an emulated controller that speaks H4 over TCP), with `TCP_NODELAY` so
    /// that each packet leaves at once. Blocks the calling thread for at most `timeout` per address.
    public static func connectTCP(
        host: String,
        port: UInt16,
        timeout: Duration = .seconds(5)
    ) throws(BLELinuxError) -> H4StreamTransport {
        let endpoint = TransportSpec.tcp(host: host, port: port).description
        let addresses = try resolve(host: host, port: port)
        var lastError: BLELinuxError?
        for address in addresses {
            do throws(BLELinuxError) {
                let socket = try connect(address, endpoint: endpoint, timeout: timeout)
                do throws(SystemError) {
                    try socket.setOption(level: CInt(IPPROTO_TCP), name: TCP_NODELAY, CInt(1))
                    let channel = try DescriptorChannel(socket: socket, name: "h4-tcp", receiveCapacity: 16384)
                    return H4StreamTransport(endpoint: endpoint, channel: channel)
                } catch {
                    throw BLELinuxError(error, subject: endpoint)
                }
            } catch {
                lastError = error
            }
        }
        throw lastError ?? BLELinuxError(.unresolvedHost, "\(host) has no address to connect to")
    }

    /// One resolved address: family and the bytes of its `sockaddr`.
    struct ResolvedAddress {
        let family: CInt
        let bytes: [UInt8]
    }

    static func resolve(host: String, port: UInt16) throws(BLELinuxError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let first = list else {
            let reason = String(cString: gai_strerror(code))
            throw BLELinuxError(.unresolvedHost, "cannot resolve '\(host)' (getaddrinfo: \(reason))")
        }
        defer { freeaddrinfo(first) }
        var result: [ResolvedAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen))
                result.append(ResolvedAddress(family: current.pointee.ai_family, bytes: Array(bytes)))
            }
            entry = current.pointee.ai_next
        }
        return result
    }

    private static func connect(
        _ address: ResolvedAddress,
        endpoint: String,
        timeout: Duration
    ) throws(BLELinuxError) -> OwnedDescriptor {
        do throws(SystemError) {
            let socket = try OwnedDescriptor.socket(
                domain: address.family,
                type: CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue),
                protocol: 0
            )
            let started = try address.bytes.withTypedBytes { bytes throws(SystemError) in try socket.connect(to: bytes)
            }
            if case .wouldBlock = started {
                switch try Poll.wait(fd: socket.rawValue, events: Int16(POLLOUT), cancel: nil, timeout: timeout) {
                case .timedOut, .cancelled:
                    throw SystemError(syscall: .connect, errno: ETIMEDOUT)
                case .ready:
                    let (code, _) = try socket.option(level: SOL_SOCKET, name: SO_ERROR, initial: CInt(0))
                    if code != 0 { throw SystemError(syscall: .connect, errno: code) }
                }
            }
            return socket
        } catch  where error.errno == ECONNREFUSED {
            throw BLELinuxError(
                .refused,
                "nothing listens on \(endpoint) (connect: ECONNREFUSED); is the emulated controller running?",
                underlying: error
            )
        } catch {
            throw BLELinuxError(error, subject: endpoint)
        }
    }
}
