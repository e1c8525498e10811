import Foundation
import Terminal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A write to a standard stream says why it failed instead of trapping or blocking for ever.
@Suite struct StandardStreamTests {
    @Test func aWriteToAPipeWhoseReaderLeftFailsWithEPIPE() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect(StandardStream.write("lost\n", to: ends[1]) == EPIPE)
    }

    @Test func aWriteToAFullDeviceFailsWithENOSPC() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        #expect(StandardStream.write("lost\n", to: full) == ENOSPC)
    }

    @Test func aPipeNobodyReadsGivesUpAfterTheWaitInsteadOfBlocking() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let chunk = String(repeating: "x", count: 1 << 20)
        let start = ContinuousClock.now
        let failure = StandardStream.write(chunk, to: ends[1], waitingAtMost: .milliseconds(50))
        #expect(failure == EAGAIN, "the pipe holds 64 KiB; the rest is not written")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func aWholeTextIsWritten() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        #expect(StandardStream.write("line one\nline two\n", to: ends[1]) == nil)
        close(ends[1])
        let data = FileHandle(fileDescriptor: ends[0], closeOnDealloc: false).readDataToEndOfFile()
        #expect(String(decoding: data, as: UTF8.self) == "line one\nline two\n")
    }
}
