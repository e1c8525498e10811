/// The system calls the Linux layer makes, each named as in its man page. Every call goes through
/// `retryingSyscall(_:_:)`, and every failure names one of these.
public enum Syscall: String, Sendable, Hashable, CaseIterable {
    /// `socket(2)`: HCI, L2CAP, management and TCP sockets.
    case socket
    /// `socketpair(2)`: the two ends of an in-process ATT link (`UnixSocketATTTransport`).
    case socketpair
    /// `bind(2)`: an HCI socket to its adapter and channel, an L2CAP socket to its source address.
    case bind
    /// `connect(2)` of an L2CAP or TCP socket, including the outcome of a non-blocking connect read back
    /// from `SO_ERROR`.
    case connect
    /// `close(2)`.
    case close
    /// `shutdown(2)`.
    case shutdown
    /// `setsockopt(2)`: `HCI_FILTER`, `BT_SECURITY`, `TCP_NODELAY`.
    case setsockopt
    /// `getsockopt(2)`: `SO_ERROR`, `L2CAP_CONNINFO`, `BT_RCVMTU`, `BT_SECURITY`.
    case getsockopt
    /// `getsockname(2)`: an L2CAP link's source address.
    case getsockname
    /// `ioctl(2)`: `HCIGETDEVLIST`, `HCIGETDEVINFO`, `HCIDEVUP`, `HCIDEVDOWN`.
    case ioctl
    /// `read(2)`: a reader thread's reads of its link.
    case read
    /// `recv(2)`: a reader thread's reads of a message socket that it reads blocking
    /// (`DescriptorChannel.ReadMode.blocking`).
    case recv
    /// `recvmmsg(2)` with `MSG_WAITFORONE`: the same reader's reads while PDUs arrive faster than it
    /// handles them, up to `DescriptorChannel.batchSlots` per call.
    case recvmmsg
    /// `write(2)`: writes to a tty, and eventfd wake-ups.
    case write
    /// `send(2)` with `MSG_NOSIGNAL` (and `MSG_DONTWAIT` on a socket read blocking): writes to a socket.
    case send
    /// `poll(2)`: waiting for a non-blocking connect to complete, and a reader's hold-off (`ReadHoldoff`).
    case poll
    /// `fcntl(2)`: setting or clearing `O_NONBLOCK`.
    case fcntl
    /// `open(2)`: a serial device, a btsnoop capture file.
    case open
    /// `eventfd(2)`: the descriptors that wake a reader thread or cancel a connect.
    case eventfd
    /// `epoll_create1(2)`: a reader thread's epoll instance.
    case epollCreate = "epoll_create1"
    /// `epoll_ctl(2)`: registering a link and its wake-up descriptor, and watching for room to write.
    case epollControl = "epoll_ctl"
    /// `epoll_wait(2)`: a reader thread waiting for its link.
    case epollWait = "epoll_wait"
    /// `tcgetattr(3)`: a UART's current settings.
    case tcgetattr
    /// `tcsetattr(3)`: a UART's raw-mode settings.
    case tcsetattr
    /// `flock(2)`: holding a serial port for this program alone.
    case flock
    /// `tcflush(3)`: dropping what a serial port held from before it was opened.
    case tcflush
    /// `getaddrinfo(3)`, for a TCP transport's host; a host that does not resolve is reported as
    /// `BLELinuxError.Kind.unresolvedHost` instead.
    case getaddrinfo
    /// `pthread_create(3)`: a link's reader thread, or the thread of a blocking connect.
    case pthreadCreate = "pthread_create"
}
