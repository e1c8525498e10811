/// How the status server's start turned out: listening on a port, or unable to.
enum StatusStart: Sendable {
    case listening(port: Int)
    case failed(String)
}
