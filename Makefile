# hcipico: `make demo` and `make test` do everything on a fresh Debian machine (as root, or with the
# Debian packages of Tools/install-deps.sh already installed).

SWIFT ?= swift
FORMAT_PATHS := Package.swift Sources Tests Tools

.PHONY: all build demo test deps test-deps generate check-generated lint unit bench fuzz clean

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
test: test-deps check-generated lint unit

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

## bench: every benchmark suite, release build (`make bench SUITES=decode` for one).
bench: deps
	$(SWIFT) run -c release Bench $(SUITES)

## fuzz: libFuzzer + ASan over the MethodSCRIPT decoders; bounded by FUZZ_RUNS (10 M) and FUZZ_SECONDS (900).
fuzz: deps
	@Tools/fuzz.sh

clean:
	rm -rf .build .build-*
