import Synchronization

/// One run of the two-part batch decode (`BatchDecoder.decodeSplit`): the blocks, which of them are
/// taken, and the two roles, each a sequence of steps of one block (or one census) at a time.
///
/// The front role decodes the front part's blocks from the first on, placing each right after the
/// one before. The back role first counts the front part (so the back part's place is known), then
/// decodes the back part's blocks from the first on the same way. A role that runs out takes the
/// other part's last block not yet taken: the back role places it by the front part's census; the
/// front role, once, counts the back part's blocks from the one the back role is at, and places by
/// that. A block placed by a bound sits at or after where the values before it end, never before.
final class SplitRun: @unchecked Sendable {
    /// Which blocks are taken; the back role's progress, for the front role's placement.
    struct Claims {
        var frontNext = 0
        var frontEnd: Int
        var backNext: Int
        var backEnd: Int
        /// The back role has counted the front part; `backBlock` is the block it decodes now (or
        /// takes next), and its values and lines start at `backValue` and after `backLine`.
        var counted = false
        var backBlock = 0
        var backValue = 0
        var backLine = 0
    }

    enum Phase {
        case census, own, prepareSteal, steal, done
    }

    /// A role's own state, touched by its thread only.
    struct Role {
        var phase: Phase
        var value = 0
        var line = 0
        /// For the front role's stealing: the block its census starts at, and where that block starts.
        var stealFrom = 0
    }

    let origin: UnsafeRawPointer
    let end: UnsafeRawPointer
    let blocks: UnsafeMutablePointer<BatchDecoder.Block>
    let count: Int
    let frontCount: Int
    let sink: ColumnSink
    let claims: Mutex<Claims>
    /// Each block's value bound and newlines: the front part's from the back role's census, the back
    /// part's (from `stealFrom` on) from the front role's.
    let bounds: UnsafeMutablePointer<(values: Int, lines: Int)>
    var front = Role(phase: .own)
    var back = Role(phase: .census)

    init(
        origin: UnsafeRawPointer,
        end: UnsafeRawPointer,
        blocks: UnsafeMutablePointer<BatchDecoder.Block>,
        count: Int,
        frontCount: Int,
        sink: ColumnSink
    ) {
        self.origin = origin
        self.end = end
        self.blocks = blocks
        self.count = count
        self.frontCount = frontCount
        self.sink = sink
        claims = Mutex(Claims(frontEnd: frontCount, backNext: frontCount, backEnd: count))
        bounds = .allocate(capacity: count)
        bounds.initialize(repeating: (0, 0), count: count)
    }

    deinit { bounds.deallocate() }

    /// One step of the front role; `false` when it has nothing left to do.
    func stepFront() -> Bool {
        switch front.phase {
        case .own:
            let taken: Int? = claims.withLock { claims in
                guard claims.frontNext < claims.frontEnd else { return nil }
                claims.frontNext += 1
                return claims.frontNext - 1
            }
            guard let index = taken else {
                front.phase = .prepareSteal
                return true
            }
            decode(index, value: front.value, line: front.line)
            front.value += blocks[index].values
            front.line += blocks[index].lines
        case .prepareSteal:
            let snapshot = claims.withLock { $0 }
            guard snapshot.counted, snapshot.backNext < snapshot.backEnd else {
                front.phase = .done
                return false
            }
            // Blocks up to the last one that may be taken: every block before a stolen one is counted.
            for index in snapshot.backBlock..<snapshot.backEnd - 1 { census(index) }
            front.stealFrom = snapshot.backBlock
            front.value = snapshot.backValue
            front.line = snapshot.backLine
            front.phase = .steal
        case .steal:
            let taken: Int? = claims.withLock { claims in
                guard claims.backNext < claims.backEnd else { return nil }
                claims.backEnd -= 1
                return claims.backEnd
            }
            guard let index = taken else {
                front.phase = .done
                return false
            }
            var value = front.value
            var line = front.line
            for before in front.stealFrom..<index {
                value += bounds[before].values
                line += bounds[before].lines
            }
            decode(index, value: value, line: line)
        case .census, .done:
            return false
        }
        return true
    }

    /// One step of the back role; `false` when it has nothing left to do.
    func stepBack() -> Bool {
        switch back.phase {
        case .census:
            for index in 0..<frontCount {
                census(index)
                back.value += bounds[index].values
                back.line += bounds[index].lines
            }
            let (value, line) = (back.value, back.line)
            claims.withLock { claims in
                claims.counted = true
                claims.backBlock = frontCount
                claims.backValue = value
                claims.backLine = line
            }
            back.phase = .own
        case .own:
            let (value, line) = (back.value, back.line)
            let taken: Int? = claims.withLock { claims in
                guard claims.backNext < claims.backEnd else { return nil }
                claims.backNext += 1
                claims.backBlock = claims.backNext - 1
                claims.backValue = value
                claims.backLine = line
                return claims.backNext - 1
            }
            guard let index = taken else {
                back.phase = .steal
                return true
            }
            decode(index, value: value, line: line)
            back.value += blocks[index].values
            back.line += blocks[index].lines
        case .steal:
            let taken: Int? = claims.withLock { claims in
                guard claims.frontNext < claims.frontEnd else { return nil }
                claims.frontEnd -= 1
                return claims.frontEnd
            }
            guard let index = taken else {
                back.phase = .done
                return false
            }
            var value = 0
            var line = 0
            for before in 0..<index {
                value += bounds[before].values
                line += bounds[before].lines
            }
            decode(index, value: value, line: line)
        case .prepareSteal, .done:
            return false
        }
        return true
    }

    /// Counts block `index` into `bounds`: a value bound no larger than the block can hold.
    func census(_ index: Int) {
        let block = blocks[index]
        let census = PackageCensus.count(block.start, block.stop)
        let capacity = PackageDecoder.maximumVariables(lineLength: block.stop - block.start)
        bounds[index] = (min(census.valueBound, capacity), census.newlines)
    }

    /// Decodes block `index` with its values from column index `value` on and its lines numbered
    /// after `line`.
    func decode(_ index: Int, value: Int, line: Int) {
        let block = blocks + index
        var blockSink = sink
        blockSink.count = value
        var errors: [BatchError] = []
        let counts = BatchDecoder.decodeLines(
            origin: origin,
            from: block.pointee.start,
            to: block.pointee.stop,
            limit: end,
            firstLine: line,
            sink: &blockSink,
            errors: &errors,
            hex: SWARHex.self,
            fast: true
        )
        block.pointee.valueStart = value
        block.pointee.firstLine = line
        block.pointee.values = blockSink.count - value
        block.pointee.lines = counts.lines
        block.pointee.packages = counts.packages
        block.pointee.errors = errors
    }
}
