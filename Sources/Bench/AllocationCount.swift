import CAllocationCounter

/// Heap allocations of the whole process (every thread) between `start()` and `stop()`, counted by
/// the `CAllocationCounter` interposer linked into Bench.
enum AllocationCount {
    static func start() {
        allocation_counter_reset()
        allocation_counter_enable(1)
    }

    /// Stops counting and returns the allocations since `start()`.
    static func stop() -> UInt64 {
        allocation_counter_enable(0)
        return allocation_counter_count()
    }
}
