import CAllocationCounter
import Glibc
import MethodSCRIPT
import MethodSCRIPTBatch

/// `Bench decode`: MethodSCRIPT decoding rates on one deterministic 1,000,000-line input, all measured
/// side by side in one run, each as lines/s, MB/s and the ratio to a bare `memchr` newline scan.
enum DecodeBench {
    static let suite = BenchSuite(
        name: "decode",
        summary:
            "MethodSCRIPT P-line decoding: batch (1 and 2 threads), streaming (20/244-byte chunks), reference, naive, memchr",
        run: { json in run(json: json) }
    )

    static let lineCount = 1_000_000
    static let rounds = 60

    struct Row {
        let name: String
        let seconds: Double
        let values: Int
        var allocationsPerLine: Double?
    }

    static func run(json: Bool) {
        let input = DecodeBenchInput.make(lines: lineCount)
        let counterActive = allocation_counter_is_active() != 0
        var rows: [Row] = []
        input.withUnsafeBytes { buffer in
            let split = splitLines(buffer)
            var baselineSum = 0.0
            let batch = ColumnarBatch()
            let parser = ReplyParser()
            var values = [Int](repeating: 0, count: 7)
            // The paths run round-robin, `rounds` times, and each keeps its best time: load from other
            // processes on the machine then hits all of them alike.
            let paths: [(String, () -> Void)] = [
                ("memchr newline scan", { values[0] = memchrScan(buffer) }),
                (
                    "batch (SWAR, columnar)",
                    {
                        BatchDecoder.decode(buffer, into: batch)
                        values[1] = batch.count
                    }
                ),
                ("streaming, 20-byte chunks", { values[2] = stream(buffer, chunk: 20, parser: parser) }),
                ("streaming, 244-byte chunks", { values[3] = stream(buffer, chunk: 244, parser: parser) }),
                (
                    "reference batch (scalar)",
                    {
                        BatchDecoder.decodeScalarReference(buffer, into: batch)
                        values[4] = batch.count
                    }
                ),
                (
                    "batch, 2 threads",
                    {
                        BatchDecoder.decodeInParallel(buffer, into: batch)
                        values[5] = batch.count
                    }
                ),
                ("C parser, PalmSens-style", { (values[6], baselineSum) = baseline(split) }),
            ]
            var times = [Double](repeating: .infinity, count: paths.count)
            for _ in 0..<rounds {
                for (index, path) in paths.enumerated() { times[index] = min(times[index], best(1, path.1)) }
            }
            precondition(
                values[0] == lineCount && values[1] == values[2] && values[2] == values[4] && values[4] == values[5]
                    && values[5] == values[6],
                "paths disagree"
            )
            precondition(agrees(baselineSum, with: batch), "the C baseline's values disagree")
            for (index, path) in paths.enumerated() {
                rows.append(Row(name: path.0, seconds: times[index], values: values[index]))
            }
            rows[1].allocationsPerLine = allocations { BatchDecoder.decode(buffer, into: batch) }
            rows[2].allocationsPerLine = allocations { _ = stream(buffer, chunk: 20, parser: parser) }
            rows[3].allocationsPerLine = allocations { _ = stream(buffer, chunk: 244, parser: parser) }
            rows[5].allocationsPerLine = allocations { BatchDecoder.decodeInParallel(buffer, into: batch) }
            let text = String(decoding: buffer, as: UTF8.self)
            // One run (it takes seconds), with the allocation counter on (a relaxed atomic add per call).
            var naiveTime = 0.0
            var naiveValues = 0
            let naiveAllocations = allocations {
                naiveTime = best(1) { naiveValues = NaiveStringParser.parse(text).count }
            }
            precondition(naiveValues == values[1], "the naive parser disagrees")
            var naive = Row(name: "naive String.split", seconds: naiveTime, values: naiveValues)
            naive.allocationsPerLine = naiveAllocations
            rows.append(naive)
        }
        let memchrTime = rows[0].seconds
        let megabytes = Double(input.count) / 1e6
        if json {
            var out = "{\"suite\":\"decode\",\"lines\":\(lineCount),\"bytes\":\(input.count),"
            out += "\"load_average\":\"\(loadAverage())\","
            out += "\"allocation_counting\":\"\(counterActive ? "malloc interposer" : "unavailable")\",\"results\":["
            out += rows.map { row in
                var item = "{\"name\":\"\(row.name)\",\"seconds\":\(row.seconds),\"values\":\(row.values),"
                item += "\"lines_per_second\":\(Double(lineCount) / row.seconds),"
                item += "\"mb_per_second\":\(megabytes / row.seconds),\"ratio_to_memchr\":\(row.seconds / memchrTime)"
                if let allocations = row.allocationsPerLine { item += ",\"allocations_per_line\":\(allocations)" }
                return item + "}"
            }.joined(separator: ",")
            print(out + "]}")
            return
        }
        print(
            "decode: \(lineCount) lines, \(input.count) bytes (80 % da;ba, 20 % dc;cc;cd), best of \(rounds) round-robin runs (naive: 1)"
        )
        print(
            pad("path", 30) + pad("M lines/s", 11, right: true) + pad("MB/s", 9, right: true)
                + pad("time vs memchr", 16, right: true) + pad("allocs/line", 13, right: true)
        )
        for row in rows {
            let rate = Double(lineCount) / row.seconds / 1e6
            let allocations = row.allocationsPerLine.map { format($0, 6) } ?? "-"
            print(
                pad(row.name, 30) + pad(format(rate, 2), 11, right: true)
                    + pad(format(megabytes / row.seconds, 0), 9, right: true)
                    + pad(format(row.seconds / memchrTime, 2) + "x", 16, right: true)
                    + pad(allocations, 13, right: true)
            )
        }
        let batchRate = 1 / rows[1].seconds
        print(
            "streaming / batch (1 thread): 20-byte chunks \(format(100 / rows[2].seconds / batchRate, 1)) %, "
                + "244-byte chunks \(format(100 / rows[3].seconds / batchRate, 1)) %; "
                + "batch 2 threads / 1 thread: \(format(rows[1].seconds / rows[5].seconds, 2))x"
        )
        print(
            "batch / C parser, PalmSens-style: 1 thread \(format(rows[6].seconds / rows[1].seconds, 1))x, "
                + "2 threads \(format(rows[6].seconds / rows[5].seconds, 1))x"
        )
        print("load average at the end: \(loadAverage())")
        print(
            "allocations: counted by a malloc/calloc/realloc/memalign interposer linked into Bench"
                + (counterActive ? "" : " (NOT ACTIVE: counts are meaningless)")
        )
    }

    /// The 1-, 5- and 15-minute load averages (the machine is shared: they say how loud it was).
    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "unknown" }
        return loads.map { format($0, 2) }.joined(separator: " ")
    }

    /// Lines found by `memchr` from newline to newline.
    @inline(never)
    static func memchrScan(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard var p = buffer.baseAddress else { return 0 }
        let end = p + buffer.count
        var lines = 0
        while p < end, let newline = memchr(p, 0x0A, end - p) {
            lines += 1
            p = UnsafeRawPointer(newline) + 1
        }
        return lines
    }

    /// Feeds `buffer` in `chunk`-byte pieces; returns the number of samples.
    @inline(never)
    static func stream(_ buffer: UnsafeRawBufferPointer, chunk: Int, parser: ReplyParser) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var count = 0
        var sum = 0.0
        var start = 0
        while start < buffer.count {
            // A chunk as a notification hands it over: an address and a length.
            let length = min(chunk, buffer.count - start)
            parser.feed(UnsafeRawBufferPointer(start: base + start, count: length)) { event, _ in
                if case .package(let samples) = event {
                    count += samples.count
                    for sample in samples { sum += sample.value }
                }
            }
            start += length
        }
        precondition(!sum.isNaN, "no NaN in the bench input")
        return count
    }

    static func best(_ runs: Int, _ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            let start = ContinuousClock.now
            body()
            let elapsed = ContinuousClock.now - start
            best = min(best, elapsed.inSeconds)
        }
        return best
    }

    /// Heap allocations per input line while `body` runs once.
    static func allocations(_ body: () -> Void) -> Double {
        AllocationCount.start()
        body()
        return Double(AllocationCount.stop()) / Double(lineCount)
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        var scaled = (value * pow(10, Double(digits))).rounded() / pow(10, Double(digits))
        if scaled == 0 { scaled = 0 }
        let text = "\(scaled)"
        guard digits > 0, let dot = text.firstIndex(of: "."), !text.contains("e") else {
            return digits == 0 ? String(Int(scaled)) : text
        }
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        return text + String(repeating: "0", count: max(0, digits - decimals))
    }
}
