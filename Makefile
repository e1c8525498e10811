# hcipico: `make demo` and `make test` do everything on a fresh Debian machine (as root, or with the
# Debian packages of Tools/install-deps.sh already installed).

SWIFT ?= swift
FORMAT_PATHS := Package.swift Sources Tests Tools

.PHONY: all build demo test deps test-deps peers-deps generate check-generated lint unit bench fuzz clean \
	test-peers peers-tier1 peers-kernel peers-kernel-blelinux peers-h4-blelinux peers-h4

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

## test: every test tier: generated code, formatting, unit and in-memory tests, peers.
test: test-deps check-generated lint unit peers-h4 test-peers

check-generated: deps
	@Tools/check-generated.sh

generate: deps
	$(SWIFT) run SpecGen "$(CURDIR)"

lint:
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)
	@echo "lint: swift format lint --strict is clean"

unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## test-peers: the independent peers of Tests/Peers/ (Bumble, Debian's kernel in qemu):
## tier-1 smoke (Bumble's own host against the Bumble peer over H4/TCP) and kernel-tier smoke
## (att_rtt, a libbluetooth C central, in the qemu guest against the peer).
PEERS_BUILD := .build/peers
ATT_RTT := $(PEERS_BUILD)/bin/att_rtt

peers-deps: test-deps
	@Tools/install-peers.sh

$(ATT_RTT): Tests/Peers/c/att_rtt.c | deps
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $< -lbluetooth

test-peers: peers-tier1 peers-kernel peers-kernel-blelinux peers-h4-blelinux

peers-tier1: peers-deps
	@Tests/Peers/tier1-smoke.sh

peers-kernel: peers-deps $(ATT_RTT)
	@Tests/Peers/kernel-tier.sh --quiet --peer-args "--mode echo,pico --peripherals 2" --bin $(ATT_RTT) \
		--run Tests/Peers/vm/smoke.sh

## peers-kernel-blelinux: BLELinux's kernel-path tests (KernelPathTests, HostKernelTests, SerialKernelTests),
## `hcipico adapters`, `scan`, `gatt` and `serial` in the qemu guest: raw HCI commands and events, LE
## scanning on the raw socket, link tuning, the L2CAP ATT socket, EBUSY.
peers-kernel-blelinux: peers-deps
	$(SWIFT) build --build-tests
	@bin=$$($(SWIFT) build --show-bin-path) && Tests/Peers/kernel-tier.sh --quiet --peer-args "--mode echo --peripherals 2" \
		--bin "$$bin/hcipicoPackageTests.xctest" --bin "$$bin/hcipico" -- hcipicoPackageTests.xctest \
		--testing-library swift-testing --no-parallel --filter 'KernelPathTests|HostKernelTests|SerialKernelTests' \
		--xunit-output /tmp/xunit.xml

## peers-h4-blelinux: BLELinux's H4-over-TCP transport against Bumble's emulated controller.
peers-h4-blelinux: peers-deps
	$(SWIFT) build --build-tests
	@Tools/h4-peer-check.sh

## peers-h4: our HCIHost over H4/TCP against fresh Bumble peers (27/251-byte LE ACL buffers, two
## peripherals, a peer that disconnects mid-run, a Connection Parameter Update Request). Without
## HCIPICO_PEER_SCRIPT a plain `swift test` skips these tests.
peers-h4: peers-deps
	$(SWIFT) build --build-tests
	HCIPICO_PEER_SCRIPT="$(CURDIR)/Tests/Peers/run-peer.sh" $(SWIFT) test --skip-build --filter HCIHostPeerTests --filter ConnectCommandPeerTests \
		--filter ScanCommandPeerTests --filter GATTCommandPeerTests --filter SerialCommandPeerTests

## bench: every benchmark suite, release build (`make bench SUITES=decode` for one).
bench: deps
	$(SWIFT) run -c release Bench $(SUITES)

## fuzz: libFuzzer + ASan over the MethodSCRIPT decoders; bounded by FUZZ_RUNS (10 M) and FUZZ_SECONDS (900).
fuzz: deps
	@Tools/fuzz.sh

clean:
	rm -rf .build .build-*
