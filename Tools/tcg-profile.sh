#!/usr/bin/env bash
# What the kernel path's write -> notify round trip costs in user-space code, the way qemu's TCG
# (make bench-kernel's emulator) charges for it: `Bench echo` runs under qemu-x86_64 (user mode, the
# same translator) with `-d exec,nochain`, which logs every translated block a thread enters. Two runs
# of N and 2N round trips, differenced, give each thread's blocks per round trip; a third run's block
# addresses, symbolised, give the reader thread's functions. Deterministic where CPU time on shared
# cores is not: count blocks to see what a change to the receive or send path saves.
#
#   Tools/tcg-profile.sh [N]     (N round trips, default 3000; builds Bench in release first)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3000}
[[ $n =~ ^[0-9]+$ ]] && ((n >= 100)) || { echo "tcg-profile: N must be a whole number >= 100" >&2; exit 64; }
if ! command -v qemu-x86_64 >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get install -y -qq qemu-user >/dev/null
    else
        echo "tcg-profile: needs qemu-x86_64 (apt-get install qemu-user)" >&2
        exit 69
    fi
fi
swift=${SWIFT:-swift}
if ! "$swift" build -c release --product Bench >"${TMPDIR:-/tmp}/tcg-profile-build.log" 2>&1; then
    cat "${TMPDIR:-/tmp}/tcg-profile-build.log" >&2
    exit 1
fi
bench="$("$swift" build -c release --show-bin-path)/Bench"
bin_dir=$(dirname "$(readlink -f "$(command -v "$swift")")")
work=$(mktemp -d "${TMPDIR:-/tmp}/tcg-profile.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One traced run of `count` round trips; the awk program reads the trace from descriptor 3.
traced() {
    local count=$1 program=$2 out=$3
    qemu-x86_64 -d exec,nochain -D /dev/fd/3 "$bench" echo --echo-rounds 1 --echo-round-trips "$count" \
        3> >(awk "$program" >"$out") >/dev/null 2>&1
}

per_thread='{ sub(":", "", $2); c[$2]++ } END { for (t in c) print t, c[t] }'
traced "$n" "$per_thread" "$work/a"
traced $((2 * n)) "$per_thread" "$work/b"
sleep 1
join <(sort "$work/a") <(sort "$work/b") | awk -v n="$n" '{ d = ($3 - $2) / n; if (d >= 1) printf "%s %.1f\n", $1, d }' \
    >"$work/threads"

# The third run: every thread's block addresses, and the guest's mappings read while it runs.
traced $((2 * n)) '{ sub(":", "", $2); split($4, a, "/"); c[$2 " " a[2]]++ } END { for (k in c) print c[k], k }' \
    "$work/pcs" &
traced_pid=$!
for _ in $(seq 1 100); do
    pid=$(pgrep -f "qemu-x86_64 -d exec,nochain -D /dev/fd/3 $bench" | head -1 || true)
    [ -n "$pid" ] && grep -q Bench "/proc/$pid/maps" 2>/dev/null && { sleep 2; cp "/proc/$pid/maps" "$work/maps"; break; }
    sleep 0.2
done
wait "$traced_pid"
sleep 1
[ -s "$work/maps" ] || { echo "tcg-profile: could not read the traced process's mappings" >&2; exit 70; }
python3 - "$work/maps" "$work/pcs" "$((2 * n + 2000))" "$bin_dir" "$work/threads" "$n" <<'PY'
import bisect, collections, subprocess, sys
maps_file, pcs_file, per, bin_dir, threads_file, n = sys.argv[1:7]
per = float(per)
mappings, bases = [], {}
for line in open(maps_file):
    parts = line.split()
    if len(parts) < 6 or not parts[5].startswith('/'):
        continue
    low, high = (int(x, 16) for x in parts[0].split('-'))
    offset = int(parts[2], 16)
    mappings.append((low, high, parts[5]))
    bases[parts[5]] = min(bases.get(parts[5], low - offset), low - offset)
symbols = {}
def nearest(path, address):
    if path not in symbols:
        table = []
        for flag in ([], ['-D']):
            listing = subprocess.run(['nm', '-n', '--defined-only'] + flag + [path], capture_output=True, text=True).stdout
            for entry in listing.splitlines():
                fields = entry.split()
                if len(fields) >= 3 and fields[1] in 'tTwWiI':
                    table.append((int(fields[0], 16), fields[2]))
        table.sort()
        symbols[path] = ([a for a, _ in table], [s for _, s in table])
    addresses, names = symbols[path]
    index = bisect.bisect_right(addresses, address) - 1
    return names[index] if index >= 0 else '?'
# Each thread's blocks by function; the reader is the thread that runs GATTEchoProbe.receive.
by_thread = collections.defaultdict(collections.Counter)
for line in open(pcs_file):
    count, thread, pc = line.split()
    pc = int(pc, 16)
    for low, high, path in mappings:
        if low <= pc < high:
            by_thread[thread][(path.rsplit('/', 1)[-1], nearest(path, pc - bases[path]))] += int(count)
            break
probe = '$s14BLEDiagnostics13GATTEchoProbeC7receiveyySWF'
reader = max(by_thread, key=lambda t: by_thread[t][('Bench', probe)])
differenced = dict(line.split() for line in open(threads_file))
print('tcg-profile: Bench echo under qemu-x86_64 -d exec,nochain, translated blocks entered per round trip')
print('  (each thread\'s count in a run of %d round trips subtracted from one of %d, divided by %d)' % (int(n), 2 * int(n), int(n)))
for thread, blocks in sorted(differenced.items(), key=lambda item: -float(item[1])):
    note = '  the client\'s reader thread (GATTEchoProbe answers each echo there)' if thread == reader else ''
    print('  thread %-3s %8s%s' % (thread, blocks, note))
print('  a bare client thread runs about 50; threads of set-up work may differ between the runs')
counts = by_thread[reader]
print('tcg-profile: the reader thread, %.1f blocks per round trip over its whole life (%d round trips, set-up and' % (sum(counts.values()) / per, per))
print('  warm-up included; the differenced count above can take in set-up work that moved between threads), by function:')
top = counts.most_common(30)
demangled = subprocess.run([bin_dir + '/swift-demangle', '--simplified', '--compact'],
                           input='\n'.join(name for (_, name), _ in top), capture_output=True, text=True).stdout.splitlines()
for ((library, _), count), name in zip(top, demangled):
    print('  %7.1f  %-16s %s' % (count / per, library[:16], name[:120]))
print('  (a shared library\'s internal functions show under the nearest exported name; _init in Bench is its PLT)')
PY
