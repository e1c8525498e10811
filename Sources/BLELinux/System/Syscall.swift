/// The system calls the Linux layer makes, each named as in its man page. Every call goes through
/// `retryingSyscall(_:_:)`, and every failure names one of these.
public enum Syscall: String, Sendable, Hashable, CaseIterable {
    case socket
    case bind
    case connect
    case close
    case shutdown
    case setsockopt
    case getsockopt
    case getsockname
    case ioctl
    case read
    case write
    case send
    case poll
    case fcntl
    case open
    case eventfd
    case epollCreate = "epoll_create1"
    case epollControl = "epoll_ctl"
    case epollWait = "epoll_wait"
    case tcgetattr
    case tcsetattr
    case getaddrinfo
    case pthreadCreate = "pthread_create"
}
