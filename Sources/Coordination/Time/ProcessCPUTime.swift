#if canImport(Glibc)
import Glibc
#endif

/// This process's CPU time (every thread, user + system), read two ways as `Tests/Peers/c/att_rtt.c`
/// reads it, so that both programs are measured alike.
public struct ProcessCPUTime: Sendable {
    /// `CLOCK_PROCESS_CPUTIME_ID`, nanosecond resolution.
    public let clockNanoseconds: Int64
    /// utime + stime from `/proc/self/stat` (clock-tick resolution), in nanoseconds; nil where unreadable.
    public let statNanoseconds: Int64?

    /// The process's CPU time now, by both readings.
    public static func now() -> ProcessCPUTime {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return ProcessCPUTime(
            clockNanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec),
            statNanoseconds: statTicks().map { $0 * 1_000_000_000 / Int64(max(1, sysconf(Int32(_SC_CLK_TCK)))) }
        )
    }

    /// Fields 14 and 15 of `/proc/self/stat` (counted after the parenthesised command name).
    private static func statTicks() -> Int64? {
        let fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        // After ")": state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 12,
            let user = Int64(String(decoding: fields[11], as: UTF8.self)),
            let system = Int64(String(decoding: fields[12], as: UTF8.self))
        else { return nil }
        return user + system
    }
}
