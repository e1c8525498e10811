import Coordination
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A descriptor written whole buffers at a time, never blocking past its wait, and read a chunk at a
/// time on a thread of its own.
@Suite struct ByteStreamTests {
    @Test func whatIsWrittenIsReadThenTheEnd() async {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let bytes: [UInt8] = Array("hello".utf8)
        #expect(bytes.withUnsafeBytes { ByteStream(descriptor: ends[1]).write($0) })
        close(ends[1])
        let reader = ByteStream(descriptor: ends[0])
        #expect(await reader.read() == bytes)
        #expect(await reader.read() == nil)
        close(ends[0])
    }

    /// A pipe nobody reads takes what fits, then the write gives up after its wait with `EAGAIN`.
    @Test func aFullPipeIsGivenUpOnAfterTheWait() {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let chunk = [UInt8](repeating: 0x41, count: 4096)
        let stream = ByteStream(descriptor: ends[1])
        var failure: Int32?
        // A pipe holds 64 KiB by default: far fewer than 1,000 chunks fill it.
        for _ in 0..<1000 {
            failure = chunk.withUnsafeBytes { stream.write($0, waitingAtMost: .milliseconds(20)) }
            if failure != nil { break }
        }
        #expect(failure == EAGAIN)
    }
}
