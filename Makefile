# Tidemark. `make demo` runs the main job; `make test` passes the tests.

GO        ?= go
BIN       := bin/tidemark
PKGS      := ./...
# Debian packages the integration tests need: real Prometheus (and promtool),
# VictoriaMetrics and headless Chromium.
DEB_PKGS  := prometheus victoria-metrics chromium
TEST_TIMEOUT ?= 30m
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
VPKG      := github.com/prometheus/common/version
LDFLAGS   := -X $(VPKG).Version=$(VERSION) -X $(VPKG).Revision=$(shell git rev-parse --short HEAD 2>/dev/null) \
             -X $(VPKG).Branch=$(shell git rev-parse --abbrev-ref HEAD 2>/dev/null) -X $(VPKG).BuildDate=$(shell date -u +%Y%m%d-%H:%M:%S)

.PHONY: all build test unit vet fmt-check generate drift bench demo deps clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tidemark

# test: everything CI checks — formatting, vet, generated-file drift, and every test
# under the race detector, including the integration tests (build tag `integration`)
# against real Prometheus, VictoriaMetrics and Chromium.
test: deps fmt-check vet drift
	$(GO) test -tags integration -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

# unit runs the hermetic tests only (no external services).
unit:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags integration $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# generate rewrites every generated file (dashboards JSON and provisioning).
generate:
	$(GO) run ./cmd/tidemark dashboards generate --output.dir dashboards/generated

# drift fails when a generated file differs from what `make generate` writes.
drift: generate
	@if [ -n "$$(git status --porcelain -- dashboards/generated)" ]; then \
		echo "generated files are out of date; run 'make generate' and commit:"; \
		git status --porcelain -- dashboards/generated; exit 1; fi

# deps installs the real services the integration tests use, when missing.
deps:
	@bash scripts/install-deps.sh $(DEB_PKGS)

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./internal/... ./remotewrite/...
	bash scripts/bench-load.sh
	bash scripts/bench-store.sh

demo: build
	./$(BIN) demo

clean:
	rm -rf bin tidemark-data out
