/// The points of a voltammetric run: each point's potential, current and scan, in the order measured.
public struct Voltammogram: Sendable, Hashable {
    /// The applied potentials (V).
    public var potentials: [Double]
    /// The currents (A): for DPV and SWV the difference current, or whichever one is to be analysed.
    public var currents: [Double]
    /// Each point's scan (1, 2, …); all 1 for a single sweep.
    public var scans: [Int]
    /// Whether the current's peaks have the sign opposite to the sweep's (a square wave's reverse current:
    /// negative peaks while the potential rises).
    public var reversed: Bool

    /// A voltammogram of equally many potentials, currents and scans (all scan 1 when none are given).
    public init(potentials: [Double], currents: [Double], scans: [Int]? = nil, reversed: Bool = false) {
        precondition(potentials.count == currents.count, "a current for each potential")
        self.potentials = potentials
        self.currents = currents
        self.reversed = reversed
        self.scans = scans ?? [Int](repeating: 1, count: potentials.count)
        precondition(self.scans.count == potentials.count, "a scan for each potential")
    }

    /// The runs of points within one scan in which the potential keeps one direction: a sweep. A point
    /// where the potential turns ends one sweep and begins the next.
    public var sweeps: [(scan: Int, range: Range<Int>, rising: Bool)] {
        var result: [(scan: Int, range: Range<Int>, rising: Bool)] = []
        potentials.withUnsafeBufferPointer { potentials in
            scans.withUnsafeBufferPointer { scans in
                let count = potentials.count
                var start = 0
                while start < count {
                    let scan = scans[start]
                    var end = start + 1
                    while end < count, scans[end] == scan { end += 1 }
                    // [start, end) is one scan; split it where the potential turns.
                    var from = start
                    var direction = 0
                    var i = start + 1
                    while i < end {
                        let step = potentials[i] - potentials[i - 1]
                        let sign = step > 0 ? 1 : (step < 0 ? -1 : 0)
                        if sign != 0 && sign != direction {
                            if direction != 0 {
                                result.append((scan, from..<i, direction > 0))
                                from = i - 1
                            }
                            direction = sign
                        }
                        i += 1
                    }
                    result.append((scan, from..<end, direction >= 0))
                    start = end
                }
            }
        }
        return result
    }
}
