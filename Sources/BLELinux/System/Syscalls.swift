internal import CBlueZ
internal import Glibc

// Every system call of the module, as a thin function named `system_<call>`. In debug builds a test
// can answer them with a `MockingDriver` instead of the kernel.

@inline(__always)
private func raw(_ pointer: UnsafeRawPointer?, _ count: Int) -> UnsafeRawBufferPointer? {
    pointer.map { UnsafeRawBufferPointer(start: $0, count: count) }
}

@inline(__always)
private func rawMutable(_ pointer: UnsafeMutableRawPointer?, _ count: Int) -> UnsafeMutableRawBufferPointer? {
    pointer.map { UnsafeMutableRawBufferPointer(start: $0, count: count) }
}

func system_socket(_ domain: CInt, _ type: CInt, _ proto: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.socket, [Int(domain), Int(type), Int(proto)]))
    }
    #endif
    return socket(domain, type, proto)
}

func system_bind(_ fd: CInt, _ address: UnsafeRawPointer, _ length: socklen_t) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.bind, [Int(fd)], input: raw(address, Int(length))))
    }
    #endif
    return bind(fd, address.assumingMemoryBound(to: sockaddr.self), length)
}

func system_connect(_ fd: CInt, _ address: UnsafeRawPointer, _ length: socklen_t) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.connect, [Int(fd)], input: raw(address, Int(length))))
    }
    #endif
    return connect(fd, address.assumingMemoryBound(to: sockaddr.self), length)
}

func system_close(_ fd: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current { return CInt(driver.call(.close, [Int(fd)])) }
    #endif
    return close(fd)
}

func system_socketpair(_ domain: CInt, _ type: CInt, _ proto: CInt, _ pair: UnsafeMutablePointer<CInt>) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.socketpair, [Int(domain), Int(type), Int(proto)]))
    }
    #endif
    return socketpair(domain, type, proto, pair)
}

func system_shutdown(_ fd: CInt, _ how: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current { return CInt(driver.call(.shutdown, [Int(fd), Int(how)])) }
    #endif
    return shutdown(fd, how)
}

func system_setsockopt(
    _ fd: CInt,
    _ level: CInt,
    _ name: CInt,
    _ value: UnsafeRawPointer,
    _ length: socklen_t
) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.setsockopt, [Int(fd), Int(level), Int(name)], input: raw(value, Int(length))))
    }
    #endif
    return setsockopt(fd, level, name, value, length)
}

func system_getsockopt(
    _ fd: CInt,
    _ level: CInt,
    _ name: CInt,
    _ value: UnsafeMutableRawPointer,
    _ length: UnsafeMutablePointer<socklen_t>
) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let count = Int(length.pointee)
        return CInt(
            driver.call(.getsockopt, [Int(fd), Int(level), Int(name), count], output: rawMutable(value, count))
        )
    }
    #endif
    return getsockopt(fd, level, name, value, length)
}

func system_getsockname(
    _ fd: CInt,
    _ address: UnsafeMutableRawPointer,
    _ length: UnsafeMutablePointer<socklen_t>
) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let count = Int(length.pointee)
        return CInt(driver.call(.getsockname, [Int(fd), count], output: rawMutable(address, count)))
    }
    #endif
    return getsockname(fd, address.assumingMemoryBound(to: sockaddr.self), length)
}

func system_ioctl(_ fd: CInt, _ request: UInt, _ argument: UnsafeMutableRawPointer, _ length: Int) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(
            driver.call(
                .ioctl,
                [Int(fd), Int(request)],
                input: raw(argument, length),
                output: rawMutable(argument, length)
            )
        )
    }
    #endif
    return cbluez_ioctl(fd, request, argument)
}

func system_ioctl(_ fd: CInt, _ request: UInt, value: UInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.ioctl, [Int(fd), Int(request), Int(value)]))
    }
    #endif
    return cbluez_ioctl_value(fd, request, value)
}

func system_read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return driver.call(.read, [Int(fd), count], output: rawMutable(buffer, count))
    }
    #endif
    return read(fd, buffer, count)
}

func system_recv(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ flags: CInt) -> Int {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return driver.call(.recv, [Int(fd), count, Int(flags)], output: rawMutable(buffer, count))
    }
    #endif
    return recv(fd, buffer, count, flags)
}

/// `recvmmsg(2)`: up to `lengths.count` messages into consecutive `slotSize`-byte slots of `buffer`, each
/// message's length into `lengths`; the message count, or -1.
func system_recvmmsg(
    _ fd: CInt,
    _ buffer: UnsafeMutableRawPointer,
    slotSize: Int,
    lengths: UnsafeMutableBufferPointer<UInt32>,
    _ flags: CInt
) -> Int {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let answer = driver.answer(.recvmmsg, [Int(fd), slotSize, lengths.count, Int(flags)])
        for (index, message) in answer.messages.prefix(lengths.count).enumerated() {
            let length = min(message.count, slotSize)
            message.withUnsafeBytes { (buffer + index * slotSize).copyMemory(from: $0.baseAddress!, byteCount: length) }
            lengths[index] = UInt32(length)
        }
        return answer.result
    }
    #endif
    return Int(cbluez_recv_batch(fd, buffer, slotSize, UInt32(lengths.count), lengths.baseAddress!, flags))
}

func system_write(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return driver.call(.write, [Int(fd), count], input: raw(buffer, count))
    }
    #endif
    return write(fd, buffer, count)
}

func system_send(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: CInt) -> Int {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return driver.call(.send, [Int(fd), count, Int(flags)], input: raw(buffer, count))
    }
    #endif
    return send(fd, buffer, count, flags)
}

func system_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let bytes = count * MemoryLayout<pollfd>.stride
        let arguments = (0..<count).flatMap { [Int(fds[$0].fd), Int(fds[$0].events)] } + [Int(timeout)]
        return CInt(driver.call(.poll, arguments, output: rawMutable(fds, bytes)))
    }
    #endif
    return poll(fds, nfds_t(count), timeout)
}

func system_fcntl(_ fd: CInt, _ command: CInt, _ argument: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.fcntl, [Int(fd), Int(command), Int(argument)]))
    }
    #endif
    return cbluez_fcntl(fd, command, argument)
}

func system_flock(_ fd: CInt, _ operation: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.flock, [Int(fd), Int(operation)]))
    }
    #endif
    return flock(fd, operation)
}

func system_tcflush(_ fd: CInt, _ queue: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.tcflush, [Int(fd), Int(queue)]))
    }
    #endif
    return tcflush(fd, queue)
}

func system_open(_ path: UnsafePointer<CChar>, _ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.open, [Int(flags)], input: raw(path, strlen(path))))
    }
    #endif
    return cbluez_open(path, flags)
}

func system_open(_ path: UnsafePointer<CChar>, _ flags: CInt, mode: mode_t) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        return CInt(driver.call(.open, [Int(flags), Int(mode)], input: raw(path, strlen(path))))
    }
    #endif
    return cbluez_open_mode(path, flags, mode)
}

func system_eventfd(_ initial: CUnsignedInt, _ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current { return CInt(driver.call(.eventfd, [Int(initial), Int(flags)])) }
    #endif
    return eventfd(initial, flags)
}

func system_epoll_create1(_ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current { return CInt(driver.call(.epollCreate, [Int(flags)])) }
    #endif
    return epoll_create1(flags)
}

func system_epoll_ctl(_ epoll: CInt, _ operation: CInt, _ fd: CInt, _ event: UnsafeMutablePointer<epoll_event>) -> CInt
{
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let arguments = [Int(epoll), Int(operation), Int(fd), Int(event.pointee.events), Int(event.pointee.data.u64)]
        return CInt(driver.call(.epollControl, arguments))
    }
    #endif
    return epoll_ctl(epoll, operation, fd, event)
}

func system_epoll_wait(
    _ epoll: CInt,
    _ events: UnsafeMutablePointer<epoll_event>,
    _ maximum: CInt,
    _ timeout: CInt
) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let bytes = Int(maximum) * MemoryLayout<epoll_event>.stride
        return CInt(
            driver.call(.epollWait, [Int(epoll), Int(maximum), Int(timeout)], output: rawMutable(events, bytes))
        )
    }
    #endif
    return epoll_wait(epoll, events, maximum, timeout)
}

func system_tcgetattr(_ fd: CInt, _ attributes: UnsafeMutablePointer<termios>) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let bytes = MemoryLayout<termios>.size
        return CInt(driver.call(.tcgetattr, [Int(fd)], output: rawMutable(attributes, bytes)))
    }
    #endif
    return tcgetattr(fd, attributes)
}

func system_tcsetattr(_ fd: CInt, _ action: CInt, _ attributes: UnsafePointer<termios>) -> CInt {
    #if ENABLE_MOCKING
    if let driver = MockingDriver.current {
        let bytes = MemoryLayout<termios>.size
        return CInt(driver.call(.tcsetattr, [Int(fd), Int(action)], input: raw(attributes, bytes)))
    }
    #endif
    return tcsetattr(fd, action, attributes)
}
