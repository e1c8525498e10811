import Foundation

/// Each of this process's threads' time on a CPU so far, by thread id, with the thread's name: the first
/// field of `/proc/self/task/TID/schedstat` (nanoseconds) and `comm`. `hcipico rtt` reads it around its
/// timed window to say which threads the CPU per round trip went to.
public struct ThreadCPUTimes: Sendable {
    /// One thread's name and the CPU time it has run.
    public struct Thread: Sendable {
        /// Its name (`/proc/self/task/ID/comm`).
        public let name: String
        /// The time it has run on a CPU (`schedstat`'s first field).
        public let nanoseconds: Int64
    }

    /// Every thread of the process, by its id.
    public let threads: [Int32: Thread]

    /// A snapshot; empty where `/proc` cannot tell (no schedstat in the kernel, no `/proc`).
    public static func now() -> ThreadCPUTimes {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var threads: [Int32: Thread] = [:]
        for task in tasks {
            guard let id = Int32(task),
                let schedstat = try? String(contentsOfFile: "/proc/self/task/\(task)/schedstat", encoding: .utf8),
                let first = schedstat.split(separator: " ").first, let nanoseconds = Int64(first),
                let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            else { continue }
            threads[id] = Thread(name: comm.trimmingCharacters(in: .whitespacesAndNewlines), nanoseconds: nanoseconds)
        }
        return ThreadCPUTimes(threads: threads)
    }

    /// The CPU nanoseconds used since `earlier`, summed by thread name, most first. A thread that began
    /// after `earlier` counts from zero; one that ended before now is missing.
    public func since(_ earlier: ThreadCPUTimes) -> [(name: String, nanoseconds: Int64)] {
        var byName: [String: Int64] = [:]
        for (id, thread) in threads {
            let used = thread.nanoseconds - (earlier.threads[id]?.nanoseconds ?? 0)
            byName[thread.name, default: 0] += used
        }
        return byName.map { (name: $0.key, nanoseconds: $0.value) }.sorted { $0.nanoseconds > $1.nanoseconds }
    }
}
