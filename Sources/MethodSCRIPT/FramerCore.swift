/// The framing state machine behind `LineFramer` and `ReplyParser`: plain pointers, so that feeding a
/// chunk involves no reference counting and no dynamic exclusivity checks. The owner deallocates it.
///
/// The byte just after every line it hands out is readable: the `\n` (or the stripped `\r`) in the
/// chunk for a line handed out in place, a `\n` written after the gathered bytes for a line gathered
/// in `storage`. Decoders use it as a terminator (`hasNewlineAfter`).
///
/// Chunks of 8 to `smallChunk` bytes (what BLE notifications at the default MTU carry) take a
/// shorter path (`feedSmall`, shared with `ReplyParser`): the whole chunk is copied behind the pending
/// bytes and every line is handed out from `storage`.
struct FramerCore {
    struct State {
        var pending = 0
        var overflowed = false
        var lineStart = 0
        var lineCount = 0
        var byteCount = 0
    }

    let maximumLineLength: Int
    let storage: UnsafeMutableRawPointer
    let state: UnsafeMutablePointer<State>

    init(maximumLineLength: Int) {
        precondition(maximumLineLength > 0, "maximumLineLength must be positive")
        self.maximumLineLength = maximumLineLength
        let capacity = maximumLineLength + Self.storageSlack
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State())
    }

    func deallocate() {
        storage.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inline(__always)
    func feed(_ chunk: UnsafeRawBufferPointer, _ body: (FramedLine) -> Void) {
        guard let base = chunk.baseAddress else { return }
        if takesSmall(chunk.count) {
            feedSmall(base, chunk.count) { start, stop, offset in
                frameSmallLine(start, stop: stop, offset: offset, body)
            }
            return
        }
        let end = base + chunk.count
        var p = base
        while p < end {
            guard let newline = NewlineSearch.first(p, end, readableFrom: base) else {
                append(p, end - p)
                break
            }
            let length = newline - p
            if state.pointee.pending == 0 && !state.pointee.overflowed {
                let kept = min(length, maximumLineLength)
                deliver(
                    UnsafeRawBufferPointer(start: p, count: kept),
                    tooLong: length > kept,
                    consumed: length + 1,
                    body
                )
            } else {
                append(p, length)
                storage.storeBytes(of: 0x0A, toByteOffset: state.pointee.pending, as: UInt8.self)
                let line = UnsafeRawBufferPointer(start: storage, count: state.pointee.pending)
                deliver(line, tooLong: state.pointee.overflowed, consumed: 1, body)
            }
            p = newline + 1
        }
    }

    func finish(_ body: (FramedLine) -> Void) {
        guard state.pointee.pending > 0 || state.pointee.overflowed else { return }
        storage.storeBytes(of: 0x0A, toByteOffset: state.pointee.pending, as: UInt8.self)
        let line = UnsafeRawBufferPointer(start: storage, count: state.pointee.pending)
        deliver(line, tooLong: state.pointee.overflowed, consumed: 0, body)
    }

    func reset() {
        state.pointee.pending = 0
        state.pointee.overflowed = false
        state.pointee.lineStart = state.pointee.byteCount
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawPointer, _ count: Int) {
        state.pointee.byteCount += count
        let pending = state.pointee.pending
        let copied = min(maximumLineLength - pending, count)
        if copied > 0 {
            let target = storage + pending
            if copied <= 32 {
                copySmall(from: bytes, to: target, count: copied)
            } else {
                target.copyMemory(from: bytes, byteCount: copied)
            }
        }
        state.pointee.pending = pending + copied
        if count > copied { state.pointee.overflowed = true }
    }

    /// Copies up to 32 bytes without a loop: from 16 bytes two 16-byte moves, the second ending at the
    /// last byte (fewer stores for the decoder's loads to wait on when it reads the line back at
    /// once); below that whole words, the last one ending at the last byte (overlapping the one
    /// before), or 4-, 2- and 1-byte pieces below eight bytes. For one chunk size the branches always
    /// go the same way.
    @inline(__always)
    func copySmall(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count: Int) {
        if count >= 16 {
            let tail = source.loadUnaligned(fromByteOffset: count &- 16, as: SIMD16<UInt8>.self)
            target.storeBytes(of: source.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
            target.storeBytes(of: tail, toByteOffset: count &- 16, as: SIMD16<UInt8>.self)
            return
        }
        if count >= 8 {
            let last = count &- 8
            let tail = source.loadUnaligned(fromByteOffset: last, as: UInt64.self)
            if count > 8 { target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self) }
            if count > 16 {
                target.storeBytes(
                    of: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    toByteOffset: 8,
                    as: UInt64.self
                )
            }
            if count > 24 {
                target.storeBytes(
                    of: source.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                    toByteOffset: 16,
                    as: UInt64.self
                )
            }
            target.storeBytes(of: tail, toByteOffset: last, as: UInt64.self)
            return
        }
        var index = 0
        if count & 4 != 0 {
            target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            index = 4
        }
        if count & 2 != 0 {
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: index, as: UInt16.self),
                toByteOffset: index,
                as: UInt16.self
            )
            index += 2
        }
        if count & 1 != 0 {
            target.storeBytes(
                of: source.load(fromByteOffset: index, as: UInt8.self),
                toByteOffset: index,
                as: UInt8.self
            )
        }
    }

    /// Hands out a line; `consumed` is the bytes of it not yet counted (`append` counted the gathered ones).
    @inline(__always)
    func deliver(_ raw: UnsafeRawBufferPointer, tooLong: Bool, consumed: Int, _ body: (FramedLine) -> Void) {
        var line = raw
        if !tooLong, let start = raw.baseAddress, raw.count > 0,
            start.load(fromByteOffset: raw.count &- 1, as: UInt8.self) == 0x0D
        {
            line = UnsafeRawBufferPointer(start: start, count: raw.count &- 1)
        }
        state.pointee.lineCount += 1
        let offset = state.pointee.lineStart
        state.pointee.byteCount += consumed
        body(FramedLine(bytes: line, number: state.pointee.lineCount, offset: offset, isTooLong: tooLong))
        state.pointee.pending = 0
        state.pointee.overflowed = false
        state.pointee.lineStart = state.pointee.byteCount
    }
}
