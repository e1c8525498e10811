#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time the calling thread has spent (`CLOCK_THREAD_CPUTIME_ID`): what a piece of work costs on
/// the thread that does it, whatever else the process does meanwhile.
public enum ThreadCPUTime {
    /// The calling thread's CPU time so far, in seconds.
    public static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
}
