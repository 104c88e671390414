# Tidemark. `make demo` runs the main job; `make test` passes the tests.

GO        ?= go
BIN       := bin/tidemark
PKGS      := ./...
# Debian packages the integration tests need: real Prometheus (and promtool),
# VictoriaMetrics and headless Chromium; and what `make image` puts into the image: the CA
# bundle (ca-certificates) and a static shell for k6-operator's initializer (busybox-static);
# python3 reads the --out json/csv files as a user's post-processing would; PostgreSQL and
# MariaDB with Debian's postgres_exporter and mysqld_exporter are the real databases of the
# process runtime's pods (internal/dbserver, internal/dbpool).
DEB_PKGS  := prometheus victoria-metrics chromium ca-certificates busybox-static python3 redis-server \
             postgresql mariadb-server prometheus-postgres-exporter prometheus-mysqld-exporter
TEST_TIMEOUT ?= 30m
# golangci-lint, installed from the Go module proxy into bin/ at this pinned version
# (go install pkg@version keeps its dependencies out of our go.mod). v2.15.0 is
# built with and supports Go 1.26.
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT         := bin/golangci-lint-$(GOLANGCI_LINT_VERSION)
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
VPKG      := github.com/prometheus/common/version
LDFLAGS   := -X $(VPKG).Version=$(VERSION) -X $(VPKG).Revision=$(shell git rev-parse --short HEAD 2>/dev/null) \
             -X $(VPKG).Branch=$(shell git rev-parse --abbrev-ref HEAD 2>/dev/null) -X $(VPKG).BuildDate=$(shell date -u +%Y%m%d-%H:%M:%S)

# The image (make image): the binary is static and reproducible, so the same commit gives
# the same image digest: its build date and every file time in the image are the commit
# time (SOURCE_DATE_EPOCH), -trimpath drops local paths, and the commit reaches the binary
# only through VERSION and IMAGE_REVISION (-buildvcs=false; no branch: a CI clone's
# detached HEAD would differ from a developer's branch).
IMAGE_DIR  ?= bin/image
IMAGE_TAG  ?= tidemark:$(VERSION)
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
# IMAGE_BUSYBOX= (empty) leaves the shell out, e.g. for another IMAGE_ARCH than this machine's.
IMAGE_BUSYBOX ?= /bin/busybox
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
IMAGE_REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
IMAGE_LDFLAGS  := -s -w -X $(VPKG).Version=$(VERSION) -X $(VPKG).Revision=$(shell echo $(IMAGE_REVISION) | cut -c1-7) \
                  -X $(VPKG).BuildDate=$(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y%m%d-%H:%M:%S)

.PHONY: all build image test unit parity vet lint fmt-check generate drift bench demo deps clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tidemark

# image writes Tidemark's OCI image, built from scratch without a container daemon, as
# $(IMAGE_DIR)/oci (OCI layout), $(IMAGE_DIR)/tidemark-oci.tar (OCI archive) and
# $(IMAGE_DIR)/tidemark.tar (docker archive), and prints its digest.
image:
	@mkdir -p $(IMAGE_DIR)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -buildvcs=false -ldflags '$(IMAGE_LDFLAGS)' -o $(IMAGE_DIR)/tidemark ./cmd/tidemark
	$(GO) run ./cmd/tidemark-image --binary $(IMAGE_DIR)/tidemark --arch $(IMAGE_ARCH) --busybox '$(IMAGE_BUSYBOX)' \
		--created $(SOURCE_DATE_EPOCH) --image.version $(VERSION) --image.revision $(IMAGE_REVISION) \
		--tag $(IMAGE_TAG) --out.dir $(IMAGE_DIR)

# test: everything CI checks — formatting, vet, generated-file drift, and every test
# under the race detector, including the integration tests (build tag `integration`)
# against real Prometheus, VictoriaMetrics and Chromium.
test: deps fmt-check vet lint drift
	$(GO) test -tags integration -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

# unit runs the hermetic tests only (no external services).
unit:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

# parity runs the k6 parity suites alone (docs/k6-parity.md): the real-world corpus
# against local stand-ins of its hosts and our own corpus against k6 v1.8.1's record,
# printing the score; `make test` runs them too.
parity:
	@mkdir -p bin
	REALWORLD_REPORT=$(CURDIR)/bin/parity.txt $(GO) test -tags integration -count=1 -timeout $(TEST_TIMEOUT) \
		-run 'TestRealWorld|TestOwnCorpusParity' ./cmd/tidemark/; status=$$?; cat bin/parity.txt; exit $$status

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags integration $(PKGS)

# lint runs golangci-lint with .golangci.yml over normal and integration-tagged files.
lint: $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run

$(GOLANGCI_LINT):
	@mkdir -p bin
	GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv bin/golangci-lint $@

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
	bash scripts/bench-out.sh
	bash scripts/bench-js.sh
	bash scripts/bench-store.sh
	bash scripts/bench-soak.sh

demo: build
	./$(BIN) demo

clean:
	rm -rf bin tidemark-data out
