# Wharf: `make demo` shows a real session, `make test` runs every suite.
# Both install what they need first (Debian packages through apt-get, Python packages into
# .venv), so they work on a fresh Debian machine that has the Swift toolchain.

SWIFT      ?= swift
PYTHON     ?= python3
VENV       := .venv
BUILD_DIR  := .build/debug
WHARF      := $(BUILD_DIR)/wharf

# System packages: the C libraries Wharf links, the shared MIME database it reads, and the
# peers its tests compare against (GLib's gio, file).
APT_PACKAGES := libjansson-dev libsqlite3-dev shared-mime-info libglib2.0-bin file

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test test-swift test-python test-clients test-demo demo clean help

all: build

help:
	@echo "make demo    build and run a real Wharf session, printing the transcript"
	@echo "make test    install what is missing, build, and run every test suite"
	@echo "make build   build the wharf binary ($(WHARF))"
	@echo "make release build the optimised, statically linked binary (.build/release/wharf)"
	@echo "make clean   remove build products and the virtual environment"

## Install missing Debian packages (apt-get update first, once, when something is missing).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

## The build to ship and to measure: optimised, with the Swift runtime linked in statically
## (measured: idle memory 12.2 -> 9.9 MiB and a faster start, since the dynamic linker has far
## fewer symbols to bind).
release: deps
	$(SWIFT) build -c release --product wharf --static-swift-stdlib

$(VENV)/.installed: Tests/python/requirements.txt
	@$(PYTHON) -m venv --help >/dev/null 2>&1 || (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/python/requirements.txt
	touch $@

## Everything CI runs (about 10 minutes on 2 cores from a fresh clone): the suites, the soak against the release
## server, the Python and Node clients, the demo, the suite again under AddressSanitizer and
## ThreadSanitizer, and 60 seconds of fuzzing.
test: test-swift test-soak test-python test-clients test-demo test-asan test-tsan test-fuzz

# The soak runs in test-soak, against the release server, which keeps it within a minute.
test-swift: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip Soak

test-python: build $(VENV)/.installed
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q Tests/python

# The Python and Node clients, each against the built binary and every conformance transcript.
# Node has no dependencies to install; only node itself, from apt if it is missing.
test-clients: build $(VENV)/.installed
	$(VENV)/bin/pip install -q --disable-pip-version-check ./clients/python
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q clients/python/tests
	@command -v node >/dev/null || (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs >/dev/null)
	WHARF=$(CURDIR)/$(WHARF) node --test clients/node/test/

# The demo is part of the tests, so what README.md promises keeps working.
test-demo: build
	$(PYTHON) clients/python/examples/demo.py $(WHARF) > /dev/null

demo: build
	@$(PYTHON) clients/python/examples/demo.py $(WHARF)

clean:
	rm -rf .build $(VENV)

# MARK: Benchmarks (not part of `make test`), fuzzing, sanitizers and the soak (part of it).
FUZZ_SECONDS ?= 60

.PHONY: bench fuzz test-fuzz test-asan test-tsan test-soak

## Benchmarks against the C floor, python-lsp-jsonrpc and pygls; rewrites bench/README.md.
bench: deps
	bench/bench.sh

## libFuzzer over framing, JSON, JSON-RPC and every method, for FUZZ_SECONDS (default 60).
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bench/fuzz/fuzz.sh

## The 60-second fuzz run CI makes (part of `make test`).
test-fuzz:
	FUZZ_SECONDS=60 bench/fuzz/fuzz.sh

## The Swift test suite under AddressSanitizer (+ LeakSanitizer) and ThreadSanitizer.
test-asan: deps
	bench/sanitizers/run.sh address

test-tsan: deps
	bench/sanitizers/run.sh thread

## The soak test (100,000 dialog cycles) against the release server, which keeps it within a
## minute; against the debug server `make test` builds, it takes about two.
test-soak: deps
	$(SWIFT) build -c release --product wharf
	$(SWIFT) build --build-tests
	WHARF=$(CURDIR)/.build/release/wharf $(SWIFT) test --skip-build --filter Soak

# MARK: Desktop dialogs (issue 14): the portal, zenity and kdialog presenters' modules and rig.
# libsystemd-dev: WharfDBus links sd-bus. dbus-daemon: WharfDBusTests and WharfDesktopDialogsTests
# start private buses of their own.
APT_PACKAGES += libsystemd-dev dbus-daemon

.PHONY: test-desktop screenshots

test: test-desktop

## The desktop rig (about 2 minutes warm): Xvfb, openbox and a private session bus with the real
## xdg-desktop-portal and xdg-desktop-portal-gtk, zenity and kdialog, driven with xdotool through
## WharfDesktopDialogs; then the bus-latency measurement. Installs what it needs (Tests/desktop/rig.sh).
test-desktop: deps
	SWIFT=$(SWIFT) Tests/desktop/rig.sh test

## Regenerates docs/screenshots/*.png: the portal (GTK), zenity and kdialog dialogs as
## WharfDesktopDialogs opens them under the rig.
screenshots: deps
	SWIFT=$(SWIFT) Tests/desktop/rig.sh screenshots
