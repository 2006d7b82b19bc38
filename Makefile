# gpuflame — `make` builds bin/gpuflame and lib/libgpuflame.a; `make demo`, `make test` (the whole suite),
# `make check` (the quick tier), `make bench`; `make mpi` bin/gpuflame-mpi (OpenMPI, optional). TEST_JOBS="-j N" sets how many test files run side by side.
# V=1 shows full commands. SAN=1 builds with ASan+UBSan into build-san/. WERROR=1 adds -Werror.
# COVERAGE=1 builds with gcov into build-cov/ (make san-cover).

CC      ?= cc
PKGS    := lua5.4 sqlite3 libcurl libcjson yaml-0.1
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)
SAN     ?=
WERROR  ?= $(if $(CI),1,)

# BUILD=DIR keeps a separate build (objects, binary, library, unit tests) under DIR.
ifeq ($(COVERAGE),1)
BUILD   ?= build-cov
SANFLAGS := --coverage
SAN_LDFLAGS :=
else ifeq ($(SAN),1)
BUILD   ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# GCC's UBSan runtime linked in, not libubsan.so: LeakSanitizer scans a shared library's globals at every exit,
# and libubsan.so's 6 MB of them made each sanitized start ~18 ms slower (the same checks and messages)
SAN_LDFLAGS := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-static-libubsan)
else
BUILD   ?= build
SANFLAGS :=
SAN_LDFLAGS :=
endif
O       := $(BUILD)
ifeq ($(O),build)
BIN     := bin/gpuflame
LIBA    := lib/libgpuflame.a
else
BIN     := $(O)/bin/gpuflame
LIBA    := $(O)/lib/libgpuflame.a
endif

# Primitives (core/*.c) never see Lua: they compile without its include path and without core/host and
# core/bind, so a Lua header reached through any include fails the build (docs/ARCHITECTURE.md).
PKG_CFLAGS = $(shell pkg-config --cflags $(filter-out lua5.4,$(PKGS)) 2>/dev/null)
LUA_CFLAGS = -Icore/host -Icore/bind $(shell pkg-config --cflags lua5.4 2>/dev/null)
# libcurl is not linked: core/http.c loads it on the first request (dlopen), which saves every start ~30 ms
PKG_LIBS   = $(shell pkg-config --libs $(filter-out libcurl,$(PKGS)) 2>/dev/null) -lcsv -ldeflate -lz -lm -pthread
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror,) \
           -Icore -I$(O)/gen $(PKG_CFLAGS) $(SANFLAGS)
CFLAGS  += $(EXTRA_CFLAGS)
LDFLAGS += $(SANFLAGS) $(SAN_LDFLAGS) $(EXTRA_LDFLAGS)
LDLIBS  = $(PKG_LIBS)

CORE_SRC  := $(filter-out core/host/main.c core/bind/l_mpi.c,$(sort $(wildcard core/*.c core/host/*.c core/bind/*.c)))
CORE_OBJ  := $(patsubst core/%.c,$(O)/obj/%.o,$(CORE_SRC))
PRIM_OBJ  := $(patsubst core/%.c,$(O)/obj/%.o,$(wildcard core/*.c))
BINDINGS  := $(patsubst core/bind/l_%.c,%,$(filter-out core/bind/l_util.c core/bind/l_mpi.c core/bind/l_trace_stats.c core/bind/l_nvtx_groups.c,$(wildcard core/bind/l_*.c)))
BUNDLED   := $(sort $(shell find lua policies templates -type f \( -name '*.lua' -o -name '*.html' -o -name '*.js' -o -name '*.css' -o -name '*.json' \) 2>/dev/null))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRC))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BIN := $(patsubst tests/fuzz/fuzz_%.c,$(O)/tests/replay_%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 60
DEPS_OK   := $(O)/.deps-ok

# `make mpi`: bin/gpuflame-mpi, the same program with MPI (issue 27; docs/MPI.md), when OpenMPI's mpicc is
# installed (libopenmpi-dev). Only core/mpi/*.c and core/bind/l_mpi.c see mpi.h; the host finds them through
# weak references, so the default build and its objects are unchanged.
MPICC   ?= mpicc
MPI_BIN := $(patsubst %/gpuflame,%/gpuflame-mpi,$(BIN))
MPI_OBJ := $(O)/obj/mpi/gf_mpi.o $(O)/obj/bind/l_mpi.o
# make test / make check build it too when mpicc is there (not under SAN=1: OpenMPI's own allocations
# would be reported as leaks; not under COVERAGE=1, which measures what the SAN=1 pass runs), and
# tests/cli/test_mpi.sh runs it; without mpicc nothing changes.
MPI_AUTO := $(if $(filter 1,$(SAN) $(COVERAGE)),,$(if $(shell command -v $(MPICC) 2>/dev/null),$(MPI_BIN),))
.PHONY: unit fuzz fuzz-build all deps test-deps test-env test check demo bench fuzz clean lint soak mpi tsan san-cover
all: $(BIN) $(LIBA)

# Installs missing Debian packages (as root) or prints the command to run; cached by a stamp file.
$(DEPS_OK): .ci/deps.sh
	$(Q).ci/deps.sh build
	$(Q)mkdir -p $(O) && touch $@
deps: $(DEPS_OK)
test-deps: $(DEPS_OK)
	$(Q).ci/deps.sh test

$(O)/gen/embed: core/gen/embed.c | $(DEPS_OK)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HOSTCC  $@";)
	$(Q)$(CC) -O1 -o $@ $<

$(O)/gen/bundle.c: $(O)/gen/embed $(BUNDLED)
	@$(if $(Q),echo "  EMBED   $@ ($(words $(BUNDLED)) files)";)
	$(Q)$(O)/gen/embed $@.tmp $(BUNDLED) && mv $@.tmp $@

# One line per core/bind/l_<name>.c: the host registers each as require("gpuflame.core").<name>.
$(O)/gen/bindings.h: $(wildcard core/bind/l_*.c) Makefile
	@mkdir -p $(@D)
	$(Q)printf '%s\n' $(foreach b,$(BINDINGS),'GF_BINDING($(b))') > $@.tmp && mv $@.tmp $@

LAYER_CFLAGS = $(LUA_CFLAGS)
$(PRIM_OBJ): LAYER_CFLAGS :=
$(O)/obj/%.o: core/%.c $(O)/gen/bindings.h | $(DEPS_OK)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<";)
	$(Q)$(CC) $(CFLAGS) $(LAYER_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/obj/bundle_data.o: $(O)/gen/bundle.c
	@$(if $(Q),echo "  CC      $<";)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(LIBA): $(CORE_OBJ) $(O)/obj/bundle_data.o
	@mkdir -p $(@D)
	@$(if $(Q),echo "  AR      $@";)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(O)/obj/host/main.o $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@";)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

mpi: $(MPI_BIN)
$(O)/.mpicc-ok:
	@command -v $(MPICC) >/dev/null || { echo "make mpi: no $(MPICC) (apt-get install libopenmpi-dev openmpi-bin)" >&2; exit 1; }
	@mkdir -p $(@D) && touch $@
$(O)/obj/mpi/%.o: core/mpi/%.c core/mpi/gf_mpi.h | $(DEPS_OK) $(O)/.mpicc-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $<";)
	$(Q)$(MPICC) $(CFLAGS) -MMD -MP -c -o $@ $<
$(O)/obj/bind/l_mpi.o: core/bind/l_mpi.c core/mpi/gf_mpi.h | $(DEPS_OK) $(O)/.mpicc-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $<";)
	$(Q)$(MPICC) $(CFLAGS) $(LUA_CFLAGS) -Icore/mpi -MMD -MP -c -o $@ $<
$(MPI_BIN): $(O)/obj/host/main.o $(MPI_OBJ) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@";)
	$(Q)$(MPICC) $(LDFLAGS) -o $@ $< $(MPI_OBJ) $(LIBA) $(LDLIBS)

$(O)/tests/%: tests/unit/%.c $(LIBA) tests/unit/tap.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<";)
	$(Q)$(CC) $(CFLAGS) $(LUA_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

# Each fuzz target also builds with a plain main() that replays inputs (regressions, seeds) in make test.
$(O)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(LIBA) $(wildcard tests/fuzz/*.h)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<";)
	$(Q)$(CC) $(CFLAGS) $(LUA_CFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $< tests/fuzz/replay_main.c $(LIBA) $(LDLIBS)

unit: $(UNIT_BIN) $(REPLAY_BIN)

# What tests/run needs to know of this build, as a file it sources (tests/run --pass): make test and make
# check use it, and CI runs the plain and the sanitizer builds' files in one queue (.ci/run).
TEST_ENV := $(O)/test.env
test-env: test-deps $(BIN) $(LIBA) $(UNIT_BIN) $(REPLAY_BIN) $(MPI_AUTO)
	$(Q){ echo "GPUFLAME_BIN='$(abspath $(BIN))'"; echo "GPUFLAME_MPI_BIN='$(abspath $(MPI_AUTO))'"; \
	  echo "GPUFLAME_LIB='$(abspath $(LIBA))'"; echo "GF_BUILD='$(abspath $(O))'"; \
	  echo "GF_CFLAGS='$(CFLAGS) $(LUA_CFLAGS)'"; echo "GF_PRIM_CFLAGS='$(CFLAGS)'"; \
	  echo "GF_LDLIBS='$(LDLIBS) $(LDFLAGS)'"; echo "VALGRIND='$(VALGRIND)'"; echo "SAN='$(SAN)'"; \
	  echo "GF_COVERAGE='$(COVERAGE)'"; } >$(TEST_ENV)

# TEST_PASSES adds passes to the same queue: CI gives "--pass san=build-san/test.env --fuzz 30" (.ci/run).
test: test-env
	$(Q)tests/run --pass =$(TEST_ENV) $(TEST_PASSES) $(TEST_JOBS) $(TESTS)

# The edit-test loop: every test file not marked `gf-test: slow` (tests/run --quick), side by side.
check: test-env
	$(Q)tests/run --pass =$(TEST_ENV) --quick $(TEST_JOBS) $(TESTS)

# Which files the sanitizer pass may leave out (tests/san_cover.txt): the files it runs, run over a gcov
# build (build-cov/), each file's counts apart; tests/san_cover.py keeps the files that reach every line and
# branch of core/ that any reaches. Rerun when code or tests change much; GF_SAN_ALL=1 ignores the list.
san-cover:
	$(Q)$(MAKE) --no-print-directory COVERAGE=1 test-env
	$(Q)rm -rf build-cov/gcda
	$(Q)tests/run --pass cov=build-cov/test.env $(TEST_JOBS) || echo "make san-cover: some files failed under the gcov build; their counts are used all the same" >&2
	$(Q)tests/san_cover.py build-cov

# The ThreadSanitizer build (build-tsan/bin/gpuflame) of the code that runs on several threads (policy
# limits.threads): tests/cli/test_threads_tsan.sh runs it when it is there; CI builds it (.ci/run).
tsan:
	$(Q)$(MAKE) BUILD=build-tsan SAN= EXTRA_CFLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
	  EXTRA_LDFLAGS=-fsanitize=thread all

demo: $(BIN)
	$(Q)tests/demo.sh $(abspath $(BIN))

# The fleet agent under injected faults for minutes (loopback only); report in docs/RELIABILITY.md.
SOAK_ARGS ?= --seeds 1-3 --captures 20
soak: $(BIN)
	$(Q)GPUFLAME_FIXTURES=$${GPUFLAME_FIXTURES:-$(abspath ..)/shared/fixtures} python3 tests/soak/soak.py --bin $(abspath $(BIN)) $(SOAK_ARGS)

bench: $(BIN) $(LIBA) $(MPI_AUTO)
	$(Q)GPUFLAME_BIN=$(abspath $(BIN)) GPUFLAME_MPI_BIN=$(abspath $(MPI_AUTO)) bench/run $(BENCH)

# libFuzzer: the core built with clang + sanitizers in build-fuzz/, one binary per tests/fuzz/fuzz_*.c,
# each run FUZZ_SECONDS on a corpus seeded from the fixtures and tests/fuzz/regressions/.
# `make fuzz-build` only builds them (CI does while the sanitizer pass runs).
fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ)

fuzz-build: test-deps
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang WERROR= \
	  EXTRA_CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer" \
	  build-fuzz/lib/libgpuflame.a
	$(Q)tests/fuzz/run.sh --build $(FUZZ)

lint:
	$(Q)luacheck -q $(wildcard lua policies tests/lua bench)

clean:
	rm -rf build build-san bin lib out

-include $(CORE_OBJ:.o=.d) $(O)/obj/host/main.d $(MPI_OBJ:.o=.d)
