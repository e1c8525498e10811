# hcipico: `make demo` and `make test` do everything on a fresh Debian machine (as root, or with the
# Debian packages of Tools/install-deps.sh already installed).

SWIFT ?= swift
FORMAT_PATHS := Package.swift Sources Tests Tools

.PHONY: all build demo test deb hcipico-static deps test-deps peers-deps generate check-generated check-dependencies check-doc-examples check-docs lint unit bench fuzz clean \
	test-peers peers-tier1 peers-kernel peers-h4-blelinux peers-h4 peers-export peers-fleet peers-api peers-analysis bench-kernel bench-uart-kernel bench-page

all: build

deps:
	@Tools/install-deps.sh build

test-deps:
	@Tools/install-deps.sh test

build: deps
	$(SWIFT) build

## demo: builds hcipico and runs the main job on the built-in simulator.
demo: deps
	$(SWIFT) build -c release --product hcipico
	@Tools/demo.sh

## deb: .build/deb/hcipico_VERSION_ARCH.deb: a release build with the Swift runtime linked in (it needs
## only Debian's own libraries), the unit, /etc/hcipico/rig.toml, examples, completions and a man page
## (Tools/deb/); lintian checks it.
DEB_BIN = $(shell $(SWIFT) build -c release --static-swift-stdlib --show-bin-path)/hcipico
deb:
	@Tools/install-deps.sh deb
	$(SWIFT) build -c release --static-swift-stdlib --product hcipico
	@package=$$(Tools/deb/build-deb.sh "$(DEB_BIN)" .build/deb) && Tools/deb/lintian-check.sh "$$package"

## test: every test tier: generated code, dependencies, formatting, unit and in-memory tests, peers, docs.
## The build happens once (in `unit`, while the peers' .venv/ is installed beside it); the later tiers then
## run with BUILT=1: the Bumble peer tests alone, then the kernel tier's qemu guest (one CPU) beside the
## other peer tiers and check-docs (Tools/test-tiers.sh).
test: test-deps check-generated check-dependencies check-doc-examples lint
	@Tools/test-tiers.sh "$(MAKE)"

# With BUILT=1 (set by `make test` after its one build) the peer tiers neither build nor install.
BUILD_TESTS = $(if $(BUILT),,$(SWIFT) build --build-tests)
BUILD_HCIPICO = $(if $(BUILT),,$(SWIFT) build --product hcipico)
PEERS_READY = $(if $(BUILT),,peers-deps)
# SwiftPM's link to the debug build's products (what `swift build --show-bin-path` names).
DEBUG_BIN := $(CURDIR)/.build/debug

check-generated: deps
	@Tools/check-generated.sh

## check-dependencies: every target's declared dependencies in Package.swift equal the modules its files import.
check-dependencies: deps
	@Tools/check-dependencies.py

## check-doc-examples: the Swift examples of the README, Internals.md and the DocC pages stand, as written,
## in a file the tests compile.
check-doc-examples:
	@Tools/check-doc-examples.py

## check-docs: every public symbol of the library targets has a doc comment; DocC builds them without a warning.
check-docs: deps
	@Tools/check-docs.sh

generate: deps
	$(SWIFT) run SpecGen "$(CURDIR)"

lint:
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)
	@echo "lint: swift format lint --strict is clean"

unit: deps
	$(SWIFT) build --build-tests
	@SWIFT="$(SWIFT)" Tools/unit-tests.sh

## test-peers: the independent peers of Tests/Peers/ (Bumble, Debian's kernel in qemu, numpy, PostgreSQL, Chromium):
## tier-1 smoke (Bumble's own host against the Bumble peer over H4/TCP), the kernel tier (one qemu
## boot: every kernel-path case), BLELinux's H4-over-TCP transport against Bumble, and the files of
## `hcipico export` loaded with numpy.
PEERS_BUILD := .build/peers
ATT_RTT := $(PEERS_BUILD)/bin/att_rtt

peers-deps: test-deps
	@Tools/install-peers.sh

$(ATT_RTT): Tests/Peers/c/att_rtt.c | deps
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $< -lbluetooth

test-peers: peers-tier1 peers-kernel peers-h4-blelinux peers-export peers-fleet peers-api peers-analysis peers-deb

peers-tier1: $(PEERS_READY)
	@Tests/Peers/tier1-smoke.sh

## peers-kernel: the kernel tier in one qemu boot against one peer (an echo and two Pico peripherals):
## `hcipico scan` by the VSP service, BLELinux's KernelPathTests, HostKernelTests and SerialKernelTests
## (raw HCI, LE scanning, link tuning, the L2CAP ATT socket, EBUSY, `hcipico scan`, `gatt`, `serial`),
## `hcipico adapters`, att_rtt (C) against both, `gatt --security encrypt|auto` through the kernel's SMP
## (a bond kept through mgmt, reused on a new link, then removed), the EmStat Pico LSV scenario through the built hcipico
## with `--link low-latency`, `hcipico rtt`, `hcipico rig` with two Picos on hci0 taken down mid-run
## (the rig brings it back), a rig whose journal commits on while the guest's clock is set an hour back
## and three days forward, GATT procedures alone and beside bluetoothd (the same output; busy, exit 14,
## when bluetoothd holds the link), and scan + LSV over `--transport user:hci0` (HCI user
## channel on the guest's adapter) (Tests/Peers/vm/kernel-cases.sh).
peers-kernel: $(PEERS_READY) $(ATT_RTT)
	$(BUILD_TESTS)
	@bin="$(DEBUG_BIN)" && Tests/Peers/kernel-tier.sh --quiet --timeout 420 \
		--peer-args "--mode echo,pico,pico --peripherals 3 --pairing sc --protect" --bin $(ATT_RTT) \
		--bin "$$bin/hcipicoPackageTests.xctest" --bin "$$bin/hcipico" --run Tests/Peers/vm/kernel-cases.sh \
		--bin /usr/libexec/bluetooth/bluetoothd --bin /usr/bin/bluetoothctl --bin /usr/bin/dbus-daemon \
		--file Tests/Peers/vm/dbus-system.conf:/etc/dbus-1/hcipico-guest.conf

## peers-deb: the package tier: the package made from the debug build relinked with the Swift runtime
## static (what `make deb` does from the release build), checked with lintian, then installed, reloaded,
## upgraded, stopped, removed and purged in a clean Debian 12 guest booted with systemd, without network
## or Swift toolchain (Tests/Peers/deb-check.sh, deb-tier.sh, vm/deb-cases.sh).
peers-deb: test-deps $(if $(BUILT),,hcipico-static)
	@Tests/Peers/deb-check.sh "$(DEBUG_BIN)/hcipico"

## hcipico-static: relinks the debug build's hcipico with the Swift runtime static (make test does this after
## the unit tier). The objects were compiled for the dynamic runtime and name only Foundation for the linker,
## so Foundation's own static dependencies are named here.
hcipico-static: deps
	$(SWIFT) build --static-swift-stdlib --product hcipico -Xlinker -lCoreFoundation -Xlinker -l_FoundationICU \
		-Xlinker -l_FoundationCollections -Xlinker -l_FoundationCShims

## bench-kernel: write -> notify round trips and CPU per round trip in one qemu boot against one echo
## peer, hcipico rtt (release build) against att_rtt (C); BENCH_ROUNDS (10), BENCH_COUNT (200).
BENCH_ROUNDS ?= 10
BENCH_COUNT ?= 200
bench-kernel: peers-deps $(ATT_RTT)
	$(SWIFT) build -c release --product hcipico
	@Tests/Peers/bench-kernel.sh --hcipico "$$($(SWIFT) build -c release --show-bin-path)/hcipico" \
		--att-rtt $(ATT_RTT) --rounds $(BENCH_ROUNDS) --count $(BENCH_COUNT)

## bench-uart-kernel: `Bench uart-cpu` (host CPU per package over a paced pseudo-terminal against the simulated
## Bluetooth path, same run) in the kernel tier's qemu guest, whose pseudo-terminal is Linux's own (release
## build); UART_ROUNDS (3), UART_SECONDS (10).
UART_ROUNDS ?= 3
UART_SECONDS ?= 10
bench-uart-kernel: peers-deps
	$(SWIFT) build -c release --product hcipico
	$(SWIFT) build -c release --product Bench
	@bin="$$($(SWIFT) build -c release --show-bin-path)" && mkdir -p .build/peers/runs \
		&& out=$$(mktemp -d .build/peers/runs/bench-uart.XXXXXX) \
		&& Tests/Peers/kernel-tier.sh --quiet --peer-args "--mode echo" --bin "$$bin/Bench" --bin "$$bin/hcipico" \
			--timeout 900 --out "$$out" -- Bench uart-cpu --uart-rounds $(UART_ROUNDS) --uart-seconds $(UART_SECONDS) \
		&& tr -d '\r' <"$$out/console.log" | grep -a -A4 '^uart: host CPU'

## bench-page: the status page's freshness (package received -> drawn, p50/p99) and its CPU cost on the rig
## (release build, three real-time simulators, headless Chromium; Tests/Peers/page_bench.py). PAGE_WINDOW (30 s).
PAGE_WINDOW ?= 30
bench-page: peers-deps
	$(SWIFT) build -c release --product hcipico
	@"$(CURDIR)/.venv/bin/python" Tests/Peers/page_bench.py --bin "$$($(SWIFT) build -c release --show-bin-path)/hcipico" \
		--examples Examples --window $(PAGE_WINDOW)

## peers-h4-blelinux: BLELinux's H4-over-TCP transport against Bumble's emulated controller.
peers-h4-blelinux: $(PEERS_READY)
	$(BUILD_TESTS)
	@Tools/h4-peer-check.sh "$(DEBUG_BIN)/hcipico"

## peers-analysis: the same voltammograms and spectra through hcipico's analysis (PicoAnalysis) and through
## the pinned scipy (Savitzky–Golay, find_peaks) and impedance.py (CustomCircuit fits): the same peaks,
## prominences and heights within 0.5 %, circuit values within 0.5 % and standard errors within 10 %.
## PUBLISHED_EIS=…/MSExampleEIS.csv adds PalmSens' published dummy-cell spectrum (licensed apart: not in
## this repository), fitted as R by both.
peers-analysis: $(PEERS_READY)
	$(BUILD_TESTS)
	HCIPICO_ANALYSIS_PYTHON="$(CURDIR)/.venv/bin/python" HCIPICO_PUBLISHED_EIS="$(PUBLISHED_EIS)" \
		$(SWIFT) test --skip-build --filter AnalysisAnchorTests

## peers-export: a rig of three simulated Picos (Examples/rig.toml) records for 8 s and `hcipico export`
## writes every run, `hcipico connect` runs every technique and Examples/ script, and the pinned numpy
## loads each per-point CSV and PSTrace CSV into numbers (Tests/Peers/export-check.sh).
peers-export: $(PEERS_READY)
	$(BUILD_HCIPICO)
	@Tests/Peers/export-check.sh --bin "$(DEBUG_BIN)/hcipico"

## peers-fleet: the rig's fleet side against real peers (Tests/Peers/fleet-check.sh): a throwaway PostgreSQL
## cluster stopped and started twice under a forwarding rig of three simulators (every value exactly once, in
## order), the status page in headless Chromium (three devices, a growing live plot; screenshots kept in
## .build/peers/fleet/), /metrics parsed and checked against the journal, the token on a 0.0.0.0 bind.
peers-fleet: $(PEERS_READY)
	$(BUILD_HCIPICO)
	@Tests/Peers/fleet-check.sh --bin "$(DEBUG_BIN)/hcipico"

## peers-api: the rig's API with real clients (Tests/Peers/api-check.sh): httpx and curl submit, follow (the
## event stream, resumed) and fetch runs on a rig of two simulators while a schedule runs; retries, roles,
## bad bodies, abort, pause and resume; SIGTERM and kill -9 with runs queued, checked in the journal; the
## status page's controls in headless Chromium; `hcipico mcp` under the Python MCP client; every route of
## Specs/api/openapi.json exercised.
peers-api: $(PEERS_READY)
	$(BUILD_HCIPICO)
	@Tests/Peers/api-check.sh --bin "$(DEBUG_BIN)/hcipico"

## peers-h4: our HCIHost over H4/TCP against fresh Bumble peers (27/251-byte LE ACL buffers, two
## peripherals, a peer that disconnects mid-run, a Connection Parameter Update Request), pairing against
## Bumble's Security Manager (Secure Connections Just Works, passkey and numeric comparison, legacy
## passkey, wrong passkeys, a reconnect from the bond, a peer that forgot it; `--security`, `pair`,
## `bonds` and a rig of Picos that need encryption), `scan` and `gatt`
## against Bumble's own profile classes (Device Information, Battery, Heart Rate, a 700-byte value) and
## against the same server with its responses corrupted on purpose, `gatt subscribe` under three waves of
## 150,000 rejected signaling requests (resident memory flat), and `hcipico rig`
## with two Pico peripherals sharing one host over one H4 link, a third on a second controller and a simulator in the
## same rig, and a controller that hangs mid-run (reset). Without
## HCIPICO_PEER_SCRIPT a plain `swift test` skips these tests.
peers-h4: $(PEERS_READY)
	$(BUILD_TESTS)
	HCIPICO_PEER_SCRIPT="$(CURDIR)/Tests/Peers/run-peer.sh" $(SWIFT) test --skip-build --filter HCIHostPeerTests --filter HCIHostSecurityPeerTests --filter SecurityCommandPeerTests --filter ConnectCommandPeerTests \
		--filter ScanCommandPeerTests --filter GATTCommandPeerTests --filter GATTProfilePeerTests --filter SerialCommandPeerTests \
		--filter RTTCommandPeerTests --filter RigCommandPeerTests --filter SignalingFloodPeerTests

## bench: every benchmark suite, release build (`make bench SUITES=decode` for one).
bench: deps
	$(SWIFT) run -c release Bench $(SUITES)

## fuzz: libFuzzer + ASan over the MethodSCRIPT decoders (Tools/fuzz.sh), then over the BLE side (Tools/fuzz-ble.sh:
## BLEWire decoders, H4 framer, L2CAP reassembly, HCIHost with a live link); each bounded by FUZZ_RUNS (10 M) and
## FUZZ_SECONDS (900).
fuzz: deps
	@Tools/fuzz.sh

clean:
	rm -rf .build .build-*
