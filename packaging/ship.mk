# Installing and shipping Wharf (included by the Makefile; packaging/README.md says why each
# file goes where it goes).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   the release binary, manual pages, completions, docs
#   make uninstall [PREFIX=...] [DESTDIR=]        removes exactly what install put there
#   make deb                                      .build/deb/wharf_VERSION_ARCH.deb, checked by lintian
#   make wheel                                    .build/dist/wharf_client-VERSION-py3-none-any.whl
#   make npm-pack                                 .build/dist/wharf-client-VERSION.tgz
#   make dist                                     all three
#   make test-ship                                the checks in packaging/test-ship.sh (part of make test)

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     := $(PREFIX)/bin
MANDIR     := $(PREFIX)/share/man
DOCDIR     := $(PREFIX)/share/doc/wharf
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
# Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions and local ones
# from /usr/local/share/zsh/site-functions.
ZSHCOMPDIR := $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
SYSTEMDUSERUNITDIR := $(PREFIX)/lib/systemd/user

# The daemon's systemd user units: install and uninstall carry them to $(SYSTEMDUSERUNITDIR)
# (also listed in packaging/install-files.txt and packaging/deb-files.txt, which test-ship
# compares against). A source ending in .in is installed without it, with @BINDIR@ replaced by
# where the binary goes (wharf.service's ExecStart).
SYSTEMD_USER_UNITS := packaging/systemd/wharf.socket packaging/systemd/wharf.service.in packaging/systemd/wharf-portal.service.in
# `wharf portal`, xdg-desktop-portal's FileChooser backend: the .portal file the portal finds it
# by, and the D-Bus service file that starts it (through wharf-portal.service under systemd).
PORTALDIR := $(PREFIX)/share/xdg-desktop-portal/portals
DBUSSERVICEDIR := $(PREFIX)/share/dbus-1/services

# The release build (the Makefile's `release`, which the soak test uses too) is what is
# installed. wharf-docs is built with the same flags (SWIFT_RELEASE), so it shares every module
# with it and costs one more link.
RELEASE_BIN   := .build/release/wharf
SHIP          := .build/ship

# The files install lays out, beside where each comes from.
SHIP_FILES := \
	$(RELEASE_BIN):$(BINDIR)/wharf:0755 \
	$(SHIP)/wharf.1:$(MANDIR)/man1/wharf.1:0644 \
	$(SHIP)/wharf-protocol.7:$(MANDIR)/man7/wharf-protocol.7:0644 \
	$(SHIP)/wharf.bash:$(BASHCOMPDIR)/wharf:0644 \
	$(SHIP)/_wharf:$(ZSHCOMPDIR)/_wharf:0644 \
	$(SHIP)/wharf.fish:$(FISHCOMPDIR)/wharf.fish:0644 \
	README.md:$(DOCDIR)/README.md:0644 \
	protocol/README.md:$(DOCDIR)/protocol/README.md:0644 \
	protocol/wharf.schema.json:$(DOCDIR)/protocol/wharf.schema.json:0644 \
	$(foreach unit,$(SYSTEMD_USER_UNITS),$(unit):$(SYSTEMDUSERUNITDIR)/$(notdir $(unit:.in=)):0644) \
	packaging/portal/wharf.portal:$(PORTALDIR)/wharf.portal:0644 \
	packaging/portal/org.freedesktop.impl.portal.desktop.wharf.service.in:$(DBUSSERVICEDIR)/org.freedesktop.impl.portal.desktop.wharf.service:0644

.PHONY: ship-files install uninstall deb wheel npm-pack dist test-ship

## The manual pages and completions, rendered by wharf-docs into .build/ship.
ship-files: release
	$(SWIFT_RELEASE) --product wharf-docs
	@mkdir -p $(SHIP)
	.build/release/wharf-docs man > $(SHIP)/wharf.1
	.build/release/wharf-docs protocol-man < protocol/README.md > $(SHIP)/wharf-protocol.7
	.build/release/wharf-docs bash > $(SHIP)/wharf.bash
	.build/release/wharf-docs zsh > $(SHIP)/_wharf
	.build/release/wharf-docs fish > $(SHIP)/wharf.fish

# install builds first, except under sudo with a build already there (`make ship-files`, then
# `sudo make install`): a build as root would leave root-owned files in .build, and root may
# not have swift on its PATH.
install: $(if $(and $(SUDO_USER),$(wildcard $(RELEASE_BIN)),$(wildcard $(SHIP)/wharf.fish)),,ship-files)
	@set -e; for entry in $(SHIP_FILES); do \
		source=$${entry%%:*}; rest=$${entry#*:}; target=$${rest%:*}; mode=$${rest##*:}; \
		echo "install $$source $(DESTDIR)$$target"; \
		if [ "$${source%.in}" != "$$source" ]; then \
			mkdir -p "$$(dirname "$(DESTDIR)$$target")"; \
			sed 's|@BINDIR@|$(BINDIR)|g' "$$source" > "$(DESTDIR)$$target"; \
			chmod "$$mode" "$(DESTDIR)$$target"; \
		else \
			install -D -m "$$mode" "$$source" "$(DESTDIR)$$target"; \
		fi; \
	done

# Only Wharf's own directory is removed; shared ones (share/man/man1, …) stay.
uninstall:
	@for entry in $(SHIP_FILES); do \
		rest=$${entry#*:}; target=$${rest%:*}; \
		rm -f "$(DESTDIR)$$target" && echo "removed $(DESTDIR)$$target"; \
	done; \
	rmdir "$(DESTDIR)$(DOCDIR)/protocol" "$(DESTDIR)$(DOCDIR)" 2>/dev/null || true

## The Debian package: make install into a staging tree under /usr, then packaging/build-deb.sh.
DEB_DIR := .build/deb

deb: ship-files
	$(call apt-ensure,dpkg-dev lintian)
	rm -rf $(DEB_DIR)/stage
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/$(DEB_DIR)/stage >/dev/null
	packaging/build-deb.sh $(DEB_DIR)/stage $(DEB_DIR)

## The clients, versioned with the server (their tests check the versions agree).
wheel: $(VENV)/.installed
	mkdir -p .build/dist
	$(VENV)/bin/pip wheel -q --disable-pip-version-check --no-deps -w .build/dist ./clients/python

# npm may come with the machine's node (NodeSource's does); Debian's npm only when it is missing.
npm-pack:
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq -o DPkg::Lock::Timeout=600 npm >/dev/null; }
	mkdir -p .build/dist
	npm pack --silent --pack-destination .build/dist ./clients/node

dist: deb wheel npm-pack

## Install, uninstall, the manual pages, the completions in their shells, the package installed
## and removed with dpkg (root, or sudo), the wheel and the tarball. See packaging/test-ship.sh.
SHIP_TEST_PACKAGES := bash-completion zsh fish man-db groff-base dpkg-dev lintian

test-ship:
	$(call apt-ensure,$(SHIP_TEST_PACKAGES))
	$(MAKE) --no-print-directory dist
	packaging/test-ship.sh
