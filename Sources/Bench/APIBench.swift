import Foundation
import Glibc
import RigClient
import Synchronization

/// `Bench api`: the rig's API from outside, against `hcipico rig` (a child process) on simulated Picos.
///
/// 1. Submit → first package: an idle on-demand device is asked for a short CA (`POST
///    /api/devices/idle/requests`), its request is followed (`GET /api/requests/{id}/events`) and the time
///    from sending the submission to reading the first `event: package` is taken; then the stream is
///    read to its end. 100 submissions, one after another; p50, p99 and the longest.
/// 2. Streams' CPU: a device runs a 1 ms CA continuously (1,000 packages/s, a Pico's full rate); the rig's
///    CPU (`/proc/PID/stat`) is taken over windows with no stream open and with 10 streams following the
///    requests it runs (each client the request running and every one after it, as a client follows
///    what it asked for), alternating, 12 of each; the median of each pair's difference is the streams'
///    cost, as a share of a core and of the rig's own CPU without them, beside the differences' mean
///    and its standard error (the windows of a shared machine differ by a percent of a core). The streams must have carried at
///    least a window's packages (10 × 1,000 a second), or the suite fails: it measured nothing.
enum APIBench {
    static let suite = BenchSuite(name: "api", summary: "the rig's API: submit → first package, 10 streams' CPU") {
        json in try await run(json: json)
    }

    static let submissions = 100
    static let windows = 12
    static let window: Duration = .seconds(10)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let shortCA =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_ca p c 200m 10m 50m\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "on_finished:\n  cell_off\n\n"
    static let fullRateCA = shortCA.replacingOccurrences(of: "200m 10m 50m", with: "200m 1m 5")

    static func run(json: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-api-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try freePort()
        let token = UUID().uuidString
        try write(token + "\n", to: directory.appendingPathComponent("control.token"), mode: 0o600)
        try write(shortCA, to: directory.appendingPathComponent("short.mscr"), mode: 0o644)
        try write(fullRateCA, to: directory.appendingPathComponent("full.mscr"), mode: 0o644)
        let config = """
            [rig]
            name = "api-bench"
            journal = "rig.sqlite"
            [status]
            listen = "127.0.0.1:\(port)"
            control_token_file = "control.token"
            [[device]]
            name = "idle"
            transport = "sim"
            script = "short.mscr"
            schedule = "on-demand"
            [[device]]
            name = "full"
            transport = "sim"
            script = "full.mscr"
            schedule = "on-demand"
            """
        try write(config, to: directory.appendingPathComponent("rig.toml"), mode: 0o644)
        let rig = Process()
        rig.executableURL = URL(fileURLWithPath: try BesideBench.hcipico())
        rig.arguments = ["rig", directory.appendingPathComponent("rig.toml").path]
        let log = directory.appendingPathComponent("rig.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        rig.standardError = logHandle
        rig.standardOutput = logHandle
        try rig.run()
        defer {
            rig.interrupt()
            rig.waitUntilExit()
        }
        let http = RigAPIClient(port: port, token: token)
        try await waitUntil { (try? http.request("GET", "/healthz").status) == 200 }
        try await waitUntil { ((try? http.request("GET", "/api/devices").body) ?? "").contains("\"connected\":true") }
        let latencies: [Double]
        let cpu: StreamCPU
        do {
            latencies = try firstPackageLatencies(http)
            cpu = try await streamCPU(http, rig: rig.processIdentifier)
        } catch {
            // What the rig said is the first thing to look at.
            let said = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(15)
            throw Failure(description: "\(error); the rig's log ends:\n" + said.joined(separator: "\n"))
        }
        let sorted = latencies.sorted()
        func quantile(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] * 1000 }
        if json {
            print(
                "{\"suite\":\"api\",\"first_package_ms_p50\":\(String(format: "%.1f", quantile(0.5))),"
                    + "\"first_package_ms_p99\":\(String(format: "%.1f", quantile(0.99))),"
                    + "\"first_package_ms_max\":\(String(format: "%.1f", (sorted.last ?? 0) * 1000)),"
                    + "\"streams_core_percent\":\(String(format: "%.2f", cpu.corePercent)),"
                    + "\"streams_core_percent_mean\":\(String(format: "%.2f", cpu.mean)),"
                    + "\"streams_core_percent_standard_error\":\(String(format: "%.2f", cpu.standardError)),"
                    + "\"streams_kernel_percent\":\(String(format: "%.2f", cpu.systemPercent)),"
                    + "\"streams_share_of_rig\":\(String(format: "%.3f", cpu.shareOfRig)),"
                    + "\"streams_packages_in_a_window\":\(cpu.received)}"
            )
            return
        }
        print("api: submit → first package on the request's event stream, idle Pico, \(latencies.count) runs")
        print(
            String(
                format: "  p50 %.1f ms, p99 %.1f ms, longest %.1f ms",
                quantile(0.5),
                quantile(0.99),
                (sorted.last ?? 0) * 1000
            )
        )
        print("api: 10 event streams following a 1,000 packages/s device, the rig's CPU (\(windows) windows each)")
        print(
            String(
                format:
                    "  without %.2f %%, with %.2f %% of a core: the streams %.2f %% of a core (%.2f %% in the kernel), %.1f %% of the rig's CPU; %d packages received in a window at least",
                cpu.without,
                cpu.with,
                cpu.corePercent,
                cpu.systemPercent,
                cpu.shareOfRig * 100,
                cpu.received
            )
        )
        let differences = cpu.pairs.map { String(format: "%+.1f", $0.total) }
        print("  each window's difference: " + differences.joined(separator: " "))
        let mean = String(format: "%.2f %% of a core, standard error %.2f", cpu.mean, cpu.standardError)
        print("  the differences' mean \(mean)")
    }

    /// Seconds from sending each submission to reading its first package on the request's stream.
    static func firstPackageLatencies(_ http: RigAPIClient) throws -> [Double] {
        var latencies: [Double] = []
        let body = "{\"script\": \(try jsonString(shortCA))}"
        for _ in 0..<submissions {
            let started = ContinuousClock.now
            let response = try http.request("POST", "/api/devices/idle/requests", body: body)
            let (status, answer) = (response.status, response.body)
            guard status == 201, let id = requestID(answer) else {
                throw Failure(description: "submission answered \(status): \(answer.prefix(200))")
            }
            let stream = try http.send("GET", "/api/requests/\(id)/events")
            defer { close(stream) }
            var seen: [UInt8] = []
            let first = try RigAPIClient.readUntil(stream, "event: package", seen: &seen)
            latencies.append((first - started).inSeconds)
            _ = try RigAPIClient.readUntil(stream, "event: end", seen: &seen)
        }
        return latencies
    }

    struct StreamCPU {
        /// Percent of a core, the medians of the windows without and with the streams.
        var without: Double
        var with: Double
        /// Their system parts (the kernel's: here, the sandbox's loopback TCP among them).
        var withoutSystem: Double
        var withSystem: Double
        /// Packages the 10 streams received while following, a window (the least of the windows).
        var received: Int
        /// Each window with streams less the window without them before it: all, and the kernel's.
        var pairs: [(total: Double, system: Double)]
        /// The streams' cost: the median of the pairs' differences, which the rig's slower drifts (a
        /// checkpoint, a run's analysis) move less than they move a difference of medians.
        var corePercent: Double { pairs.map(\.total).sorted()[pairs.count / 2] }
        var systemPercent: Double { pairs.map(\.system).sorted()[pairs.count / 2] }
        var shareOfRig: Double { without > 0 ? corePercent / without : 0 }
        /// The differences' mean and the standard error of that mean.
        var mean: Double { pairs.map(\.total).reduce(0, +) / Double(pairs.count) }
        var standardError: Double {
            let squares = pairs.map { ($0.total - mean) * ($0.total - mean) }.reduce(0, +)
            return (squares / Double(max(1, pairs.count - 1))).squareRoot() / Double(pairs.count).squareRoot()
        }
    }

    /// The rig's CPU while `full` runs, without and with 10 streams following it.
    static func streamCPU(_ http: RigAPIClient, rig: Int32) async throws -> StreamCPU {
        let body = "{\"script\": \(try jsonString(fullRateCA))}"
        // Enough runs queued (5 s each) for every pair of windows and the wait after each, so that the
        // device never waits.
        let runs = Int((Double(windows) * (2 * window.inSeconds + 7) + 20) / 5) + 2
        var requests: [String] = []
        for _ in 0..<runs {
            let response = try http.request("POST", "/api/devices/full/requests", body: body)
            let (status, answer) = (response.status, response.body)
            guard status == 201, let id = requestID(answer) else {
                throw Failure(description: "submission answered \(status): \(answer)")
            }
            requests.append(id)
        }
        let submitted = requests
        try await Task.sleep(for: .seconds(2))
        var without: [(total: Double, system: Double)] = []
        var with: [(total: Double, system: Double)] = []
        var received: [Int] = []
        for _ in 0..<windows {
            without.append(try await cpuPercent(rig: rig))
            // The followers take the request running now and each one after it, as a client that
            // follows what it asked for.
            let devices = try http.request("GET", "/api/devices").body
            guard let running = runningRequest(devices, device: "full"), let from = submitted.firstIndex(of: running)
            else { throw Failure(description: "the device runs no request of the bench's: \(devices)") }
            let stop = StopFlag()
            let count = PackageCount()
            for _ in 0..<10 { Thread { follow(http, requests: submitted[from...], stop: stop, count: count) }.start() }
            try await Task.sleep(for: .milliseconds(500))
            with.append(try await cpuPercent(rig: rig))
            stop.set()
            try await Task.sleep(for: .seconds(6))  // the followers end with their run
            // The streams must have carried the window's packages at least, or nothing was measured.
            let expected = Int(10 * 1_000 * window.inSeconds)
            guard count.value >= expected else {
                throw Failure(description: "the streams received \(count.value) packages in a window, not \(expected)")
            }
            received.append(count.value)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return StreamCPU(
            without: median(without.map(\.total)),
            with: median(with.map(\.total)),
            withoutSystem: median(without.map(\.system)),
            withSystem: median(with.map(\.system)),
            received: received.min() ?? 0,
            pairs: zip(with, without).map { ($0.total - $1.total, $0.system - $1.system) }
        )
    }

    /// Follows `requests`, one after another (each from its state while queued to its run's end),
    /// until `stop`.
    static func follow(_ http: RigAPIClient, requests: ArraySlice<String>, stop: StopFlag, count: PackageCount) {
        let marker = Array("\nevent: package\n".utf8)
        for id in requests where !stop.isSet {
            guard let stream = try? http.send("GET", "/api/requests/\(id)/events") else { return }
            var seen: [UInt8] = []
            _ = try? RigAPIClient.readUntil(stream, "event: end", seen: &seen)
            close(stream)
            var packages = 0
            var index = 0
            while index + marker.count <= seen.count {
                if seen[index] == marker[0] && seen[index..<index + marker.count].elementsEqual(marker) {
                    packages += 1
                    index += marker.count
                } else {
                    index += 1
                }
            }
            count.add(packages)
        }
    }

    /// The rig's CPU over one window, as a percentage of a core: all of it, and its system part.
    static func cpuPercent(rig: Int32) async throws -> (total: Double, system: Double) {
        guard let before = processCPU(rig) else { throw Failure(description: "the rig has gone") }
        let started = ContinuousClock.now
        try await Task.sleep(for: window)
        guard let after = processCPU(rig) else { throw Failure(description: "the rig has gone") }
        let elapsed = (ContinuousClock.now - started).inSeconds
        return ((after.total - before.total) / elapsed * 100, (after.system - before.system) / elapsed * 100)
    }

    /// CPU seconds of another process, all and system, from /proc/PID/stat (utime, stime).
    static func processCPU(_ pid: Int32) -> (total: Double, system: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((user + system) / tick, system / tick)
    }

    // MARK: Helpers

    final class PackageCount: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add(_ packages: Int) { count.add(packages, ordering: .relaxed) }
    }

    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    static func requestID(_ json: String) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return object?["id"] as? String
    }

    /// The id of the request `device` runs now.
    static func runningRequest(_ json: String, device: String) -> String? {
        guard let devices = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
            let entry = devices.first(where: { $0["name"] as? String == device }),
            let running = entry["running"] as? [String: Any]
        else { return nil }
        return running["id"] as? String
    }

    /// `text` as a JSON string.
    static func jsonString(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }

    static func write(_ text: String, to url: URL, mode: Int) throws {
        try text.write(to: url, atomically: false, encoding: .utf8)
        chmod(url.path, mode_t(mode))
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<300 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "the rig did not come up in 15 s")
    }
}
