# hlopt: plain Makefile. `make` builds ./hlopt; see README.md for targets.
# BUILD selects the object folder (helpers may build in parallel trees).

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
BUILD = build
CC = cc
OPT = -O2
CFLAGS = -std=c11 -g $(OPT) -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -fno-common \
	-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
PKGS = libprotobuf-c gsl check
PKG_CFLAGS = $$(pkg-config --cflags libprotobuf-c gsl 2>/dev/null)
LIBS = -pthread -largtable2 $$(pkg-config --libs libprotobuf-c gsl 2>/dev/null || \
	echo -lprotobuf-c -lgsl -lgslcblas) -lm
CHECK_LIBS = $$(pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lpthread)
SAN =
-include config.mk

PROTOS = hlo/xla_data.proto hlo/hlo.proto
GEN = $(PROTOS:hlo/%.proto=$(BUILD)/gen/%.pb-c.c)
GENH = $(GEN:.c=.h)

# the layers, lowest first (ARCHITECTURE.md). each folder is compiled with
# the include paths of the layers it may use and no others; scripts/layers
# (run by make check) fails on any symbol an object takes from a layer above.
LAYERS = hlo src/eval passes src/env src/rl src
INC_hlo = -Ihlo -I$(BUILD)/gen
INC_src/eval = -Ihlo -Isrc/eval
INC_passes = -Ihlo -Isrc/eval -Ipasses
INC_src/env = -Ihlo -Isrc/eval -Ipasses -Isrc/env
INC_src/rl = -Isrc/env -Isrc/rl
INC_src = -Ihlo -Isrc/eval -Ipasses -Isrc/env -Isrc/rl -Isrc
INC_ALL = $(INC_src) -I$(BUILD)/gen
SRCS = $(foreach l,$(LAYERS),$(wildcard $(l)/*.c))
LIBSRCS = $(filter-out src/main.c,$(SRCS))
OBJS = $(SRCS:%.c=$(BUILD)/%.o) $(GEN:.c=.o)
LIBOBJS = $(LIBSRCS:%.c=$(BUILD)/%.o) $(GEN:.c=.o)
TESTSRCS = $(wildcard tests/check_*.c)
TESTBINS = $(TESTSRCS:tests/%.c=$(BUILD)/tests/%)
BIN = $(if $(filter build,$(BUILD)),hlopt,$(BUILD)/hlopt)

all: $(BIN)

$(BIN): $(OBJS)
	$(CC) $(CFLAGS) $(SAN) -o $@ $(OBJS) $(LIBS)

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: hlo/%.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=hlo --c_out=$(BUILD)/gen $<

$(BUILD)/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c $(GENH)
	$(CC) $(CFLAGS) $(SAN) -w $(PKG_CFLAGS) -I$(BUILD)/gen -c -o $@ $<

# one rule per layer, so that a folder sees only its own include paths;
# -MMD records the headers each object really reads
define layer_rule
$$(BUILD)/$(1)/%.o: $(1)/%.c | $$(GENH)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(SAN) -MMD -MP $$(PKG_CFLAGS) $$(INC_$(1)) -c -o $$@ $$<
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rule,$(l))))

$(BUILD)/tests/%: tests/%.c tests/testutil.h $(LIBOBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP $(PKG_CFLAGS) $(INC_ALL) -o $@ $< $(LIBOBJS) $(LIBS) $(CHECK_LIBS)

-include $(OBJS:.o=.d) $(TESTBINS:=.d)

layers: $(OBJS)
	@sh scripts/layers $(BUILD) $(LAYERS)

deps:
	@sh scripts/deps

check: deps
	@$(MAKE) --no-print-directory all tests replay
	@sh scripts/layers $(BUILD) $(LAYERS)
	@sh scripts/sizes
	@sh scripts/runtests $(BUILD) $(BIN)

tests: $(TESTBINS)

check-asan:
	@sh scripts/deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		build-asan/hlopt tests replay
	@ASAN_OPTIONS=detect_leaks=1 CK_FORK=no sh scripts/runtests build-asan build-asan/hlopt

demo: deps
	@echo "building hlopt (compiler output in $(BUILD)/demo-build.log)"
	@mkdir -p $(BUILD) && $(MAKE) --no-print-directory all \
		>$(BUILD)/demo-build.log 2>&1 || { tail -20 $(BUILD)/demo-build.log; exit 1; }
	@sh scripts/demo ./hlopt

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	cp hlopt $(DESTDIR)$(BINDIR)/hlopt
	cp man/hlopt.1 $(DESTDIR)$(MANDIR)/man1/hlopt.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hlopt $(DESTDIR)$(MANDIR)/man1/hlopt.1

clean:
	rm -rf build build-* hlopt

.PHONY: all check check-asan demo deps install uninstall clean tests layers
.SECONDARY:

$(BUILD)/bench_io: scripts/bench_io.c $(LIBOBJS)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(INC_ALL) -o $@ scripts/bench_io.c $(LIBOBJS) $(LIBS)

$(BUILD)/bench_env: scripts/bench_env.c $(LIBOBJS)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(INC_ALL) -o $@ scripts/bench_env.c $(LIBOBJS) $(LIBS)

# fuzzing (tests/fuzz): `make fuzz FUZZ_SECONDS=N` runs every libFuzzer
# target for N seconds each (FUZZ_RUNS=N: until N executions instead;
# FUZZ_TARGETS=text picks targets); `make fuzz-afl` builds AFL++-style binaries
# (stdin driver); make check replays tests/fuzz/regress/ through the
# targets built normally.
FUZZ_TARGETS = text proto verify
FUZZ_SECONDS = 60
FUZZ_RUNS = 0
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(LIBOBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(PKG_CFLAGS) $(INC_ALL) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/driver.c $(LIBOBJS) $(LIBS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIBOBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $(PKG_CFLAGS) $(INC_ALL) -o $@ tests/fuzz/fuzz_$*.c $(LIBOBJS) $(LIBS)

replay: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/replay_%)

fuzz:
	@sh scripts/deps
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT=-O1 \
		SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
		$(FUZZ_TARGETS:%=build-fuzz/fuzz/fuzz_%)
	@sh scripts/fuzz build-fuzz $(FUZZ_SECONDS) $(FUZZ_RUNS) $(FUZZ_TARGETS)

fuzz-afl:
	@$(MAKE) --no-print-directory BUILD=build-afl \
		CC=$$(command -v afl-clang-fast || command -v afl-cc || echo clang) \
		SAN="$(FUZZ_SAN)" $(FUZZ_TARGETS:%=build-afl/fuzz/replay_%)
	@echo "AFL++ targets: build-afl/fuzz/replay_{$(FUZZ_TARGETS)} (read stdin when given no file)"

check-valgrind: all tests replay
	@sh scripts/check-valgrind $(BUILD) $(BIN)

.PHONY: fuzz fuzz-afl replay check-valgrind

# allocation-failure injection: a build whose allocator fails at the
# allocation numbered $HLOPT_FAIL_AT; every run must end in a message and
# exit 1, never a crash
check-failalloc:
	@$(MAKE) --no-print-directory BUILD=build-failalloc \
		OPT="-O1 -DHLOPT_FAILALLOC" build-failalloc/hlopt
	@sh scripts/check-failalloc build-failalloc/hlopt

.PHONY: check-failalloc
