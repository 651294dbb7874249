# slurm-autosize: plain Makefile (GNU make). See README.md.
# One version for the CLI, the Lua module and the Debian package.
VERSION := 0.2.0

# The Slurm to build against: the system's (/usr/include/slurm, Debian's
# libslurm-dev) unless SLURM_PREFIX names an installed Slurm (headers in
# $(SLURM_PREFIX)/include, libslurm in $(SLURM_PREFIX)/lib), e.g. one made
# by contrib/slurm/build-slurm.sh. The SPANK plugin only loads in the
# Slurm major release it was built for (doc/slurm-versions.md): each
# Slurm gets its own build folder, build/<basename of SLURM_PREFIX>.
SLURM_PREFIX ?=
override SLURM_PREFIX := $(patsubst %/,%,$(SLURM_PREFIX))
ifneq ($(SLURM_PREFIX),)
ifeq ($(wildcard $(SLURM_PREFIX)/include/slurm/slurm.h),)
$(error SLURM_PREFIX=$(SLURM_PREFIX) has no include/slurm/slurm.h)
endif
BUILD ?= build/$(notdir $(SLURM_PREFIX))
sysconfdir ?= $(SLURM_PREFIX)/etc
slurmlibdir ?= $(SLURM_PREFIX)/lib/slurm
endif

# Install folders (make install VAR=value; doc/admins.md "Install on a cluster").
prefix ?= /usr/local
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
datadir ?= $(prefix)/share
mandir ?= $(datadir)/man
# The shipped example policy, catalog and presets, and the plugstack line.
pkgdatadir ?= $(datadir)/slurm-autosize
# The node's spool of measured figures waiting for slurmctld or
# slurmdbd (doc/closed-loop.md), root's alone; made when first used.
localstatedir ?= /var
spooldir ?= $(localstatedir)/spool/slurm-autosize
# systemd's units (the spool's flush timer, shipped disabled).
systemdunitdir ?= $(prefix)/lib/systemd/system
# Slurm's configuration folder: the policy is $(sysconfdir)/autosize/.
sysconfdir ?= /etc/slurm
# Slurm's plugin folder (Debian: /usr/lib/<multiarch>/slurm-wlm), where
# spank_autosize.so goes; the Lua module goes to $(luamoddir). The old
# name of slurmlibdir, `libdir=` on the command line, is still accepted.
MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || \
	$(CC) -print-multiarch 2>/dev/null || echo "$$(uname -m)-linux-gnu")
ifeq ($(origin libdir),command line)
slurmlibdir ?= $(libdir)
endif
slurmlibdir ?= /usr/lib/$(MULTIARCH)/slurm-wlm
luamoddir ?= $(slurmlibdir)/lua
DESTDIR ?=
POLICY_PATH = $(sysconfdir)/autosize/autosize.yaml

CC ?= cc
PKG_CONFIG ?= pkg-config
BUILD ?= build

# -Werror for development builds only: make check (and CI through it),
# the sanitizer, fuzz and soak builds set it; a site's `make` does not.
# WERROR= on the command line turns it off, WERROR=-Werror on.
ifneq ($(filter check check-% fuzz fuzz-build soak bench validate,$(MAKECMDGOALS)),)
WERROR ?= -Werror
endif
WERROR ?=
export WERROR
WARN := -Wall -Wextra $(WERROR) -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIC
OPT ?= -O2 -g
CFLAGS ?=
override CFLAGS += -std=gnu11 $(OPT) $(WARN) $(HARDEN) -MMD -MP \
	-Iinclude -Iutil -Icore $(EXTRA_CFLAGS)
LDHARDEN := -Wl,-z,relro,-z,now -Wl,-z,noexecstack
override LDFLAGS += $(LDHARDEN) $(EXTRA_LDFLAGS)

YAML_LIBS := $(shell $(PKG_CONFIG) --libs yaml-0.1 2>/dev/null || echo -lyaml)
HWLOC_CFLAGS := $(shell $(PKG_CONFIG) --cflags hwloc 2>/dev/null)
HWLOC_LIBS := $(shell $(PKG_CONFIG) --libs hwloc 2>/dev/null || echo -lhwloc)
LUA_CFLAGS := $(shell $(PKG_CONFIG) --cflags lua5.1 2>/dev/null || echo -I/usr/include/lua5.1)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
# -isystem, as /usr/include is: 26.05's slurm.h has old-style
# declarations (void (*acct_full)();) that -Wstrict-prototypes rejects.
SLURM_CFLAGS := $(if $(SLURM_PREFIX),-isystem $(SLURM_PREFIX)/include)
CORE_LIBS := $(YAML_LIBS) -lm

# What the code is told about the install: the version, the CLI's
# default policy and spool (and the SPANK plugin's, through
# spank_common.o; spank_report.o is told where the CLI goes). Only
# the objects below get them; $(CONFIG_ID) is rewritten only when one
# changes, so `make install sysconfdir=/x` rebuilds just those.
CONFIG_DEFS = -DAUTOSIZE_VERSION='"$(VERSION)"' \
	-DAUTOSIZE_POLICY_PATH='"$(POLICY_PATH)"' \
	-DAUTOSIZE_PKGDATADIR='"$(pkgdatadir)"' \
	-DAUTOSIZE_SPOOL_DIR='"$(spooldir)"'
CONFIG_VALUES = $(VERSION) $(POLICY_PATH) $(pkgdatadir) $(spooldir) $(bindir)
CONFIG_ID := $(BUILD)/gen/config.id
CONFIG_OBJ := $(BUILD)/cli/main.o $(BUILD)/cli/policy_file.o \
	$(BUILD)/cli/spool_cmd.o \
	$(BUILD)/plugin/lua_autosize.o \
	$(BUILD)/plugin/spank_common.o

# Which process loads what (doc/architecture.md): util/ (primitives) and
# core/ (the sizing core) make libautosize.a, which the SPANK plugin and
# the Lua module link; offline/ (reports, calibration learning, replay,
# probe, show) makes libautosize-offline.a, which only the autosize
# command (and tests, tools) links. `make check-boundary` fails when the
# daemons' side uses the command's.
UTIL_SRC := $(wildcard util/*.c)
CORE_SRC := $(UTIL_SRC) $(wildcard core/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC)) $(BUILD)/gen/embedded.o
OFFLINE_SRC := $(wildcard offline/*.c)
OFFLINE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(OFFLINE_SRC))
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
EMBED := etc/gpus.yaml etc/models.yaml etc/perf.yaml etc/published-runs.tsv

# Slurm plugins: thin adapters over the core (see plugin/).
SPANK_SRC := $(wildcard plugin/spank*.c plugin/gpucheck.c)
SPANK_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SPANK_SRC))
LUAMOD_SRC := $(wildcard plugin/lua*.c)
LUAMOD_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LUAMOD_SRC))

LIB := $(BUILD)/libautosize.a
OFFLINE_LIB := $(BUILD)/libautosize-offline.a
# What the command, the tests and the tools link (the offline library
# first: it uses the core)
LIBS := $(OFFLINE_LIB) $(LIB)
CLI := $(BUILD)/autosize
SPANK := $(if $(SPANK_SRC),$(BUILD)/spank_autosize.so)
LUAMOD := $(if $(LUAMOD_SRC),$(BUILD)/autosize.so)

.PHONY: FORCE all check check-unit check-boundary check-browser check-slurm check-versions rpm check-rpm check-install check-deb check-integration check-asan check-leaks \
	fuzz fuzz-build clean install uninstall deb tests validate bench soak \
	simulate fit
all: $(LIB) $(OFFLINE_LIB) $(CLI) $(SPANK) $(LUAMOD)

$(CONFIG_ID): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' "$(CONFIG_VALUES)" | cmp -s - $@ 2>/dev/null || \
		printf '%s\n' "$(CONFIG_VALUES)" > $@

$(CONFIG_OBJ): $(CONFIG_ID)
$(CONFIG_OBJ): override CFLAGS += $(CONFIG_DEFS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The shipped catalog and presets are compiled in, so the core needs no
# file access for them (slurmctld, compute nodes).
$(BUILD)/gen/embedded.c: $(EMBED) contrib/embed.sh
	@mkdir -p $(dir $@)
	sh contrib/embed.sh $(EMBED) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/embedded.o: $(BUILD)/gen/embedded.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(CORE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(OFFLINE_LIB): $(OFFLINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/plugin/%.o: plugin/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SLURM_CFLAGS) $(HWLOC_CFLAGS) $(LUA_CFLAGS) -c -o $@ $<

# The report step runs the autosize command of this build or install
# (its spool --flush, linked with the libslurm the build used).
$(BUILD)/plugin/spank_report.o: $(CONFIG_ID)
$(BUILD)/plugin/spank_report.o: override CFLAGS += \
	-DAUTOSIZE_CLI_PATH='"$(bindir)/autosize"'

# The host process (sbatch, slurmstepd) provides the slurm_* and spank_*
# symbols: no -lslurm. Only the plugin's entry points are exported.
$(SPANK): $(SPANK_OBJ) $(LIB) plugin/spank.map
	$(CC) -shared -o $@ $(SPANK_OBJ) $(LIB) $(LDFLAGS) \
		-Wl,--version-script=plugin/spank.map $(CORE_LIBS) $(HWLOC_LIBS)

# Lua 5.1 C module for job_submit.lua: slurmctld has liblua5.1 loaded
# globally, so no -llua.
$(LUAMOD): $(LUAMOD_OBJ) $(LIB) plugin/lua.map
	$(CC) -shared -o $@ $(LUAMOD_OBJ) $(LIB) $(LDFLAGS) \
		-Wl,--version-script=plugin/lua.map $(CORE_LIBS)

# check-config --live and inventory read slurmctld through libslurm when
# its headers are installed (libslurm-dev); without them the CLI says so.
SLURM_H := $(wildcard $(or $(SLURM_PREFIX),/usr)/include/slurm/slurm.h)
SLURM_LDIRS := -L$(SLURM_PREFIX)/lib -Wl,-rpath,$(SLURM_PREFIX)/lib
SLURM_LIBS := $(if $(SLURM_H),$(if $(SLURM_PREFIX),$(SLURM_LDIRS)) -lslurm)
$(BUILD)/cli/live.o $(BUILD)/cli/live_limits.o $(BUILD)/cli/acct.o \
	$(BUILD)/cli/chain_end.o: \
	override CFLAGS += $(SLURM_CFLAGS) $(if $(SLURM_H),-DAUTOSIZE_HAVE_SLURM)

$(CLI): $(CLI_OBJ) $(LIBS)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(LIBS) $(LDFLAGS) $(CORE_LIBS) \
		$(SLURM_LIBS)

$(BUILD)/tests/%: tests/%.c $(LIBS) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(LIBS) $(LDFLAGS) $(CORE_LIBS) $(CMOCKA_LIBS)

tests: $(TEST_BIN) $(CLI) $(SPANK) $(LUAMOD)

# Every unit test binary runs (cmocka summary lines), then the
# integration tests against a real Slurm when tests/integration exists.
check: tests
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-install
	@$(MAKE) --no-print-directory check-deb
	@$(MAKE) --no-print-directory check-integration
	@$(MAKE) --no-print-directory check-browser

# The HTML pages (plan --html, report --html, a page of planted markup)
# in headless Chromium with JavaScript off: their DOM against the JSON of
# the same request, screenshots in $(BUILD)/screenshots/ (about 10 s;
# skipped with one line without chromium).
check-browser: $(CLI) $(BUILD)/tests/browser_fixture
	@sh tests/browser/run $(BUILD)

# make install into a scratch DESTDIR puts every file where it belongs.
check-install: all
	@AUTOSIZE_BUILD=$(BUILD) sh tests/check_install.sh

# make deb, lintian when installed, and dpkg into a scratch root (about
# 10 s). CI also installs it into the system: tests/check_deb.sh --system.
check-deb: all
	@AUTOSIZE_BUILD=$(BUILD) sh tests/check_deb.sh

# The cmocka binaries alone (and the CLI that test_cli runs), then the
# module graph (no cycle but memory <-> perf) and the doc links.
check-unit: $(TEST_BIN) $(CLI)
	@sh tests/run.sh $(BUILD) $(TEST_BIN)
	@python3 tests/depgraph.py --check $(BUILD)
	@python3 tests/check_boundary.py $(BUILD)
	@python3 tests/check_doclinks.py

# The process boundary alone (tests/check_boundary.py, under a second):
# no daemon-side file (util/, core/, plugin/) includes a header of the
# command's side or uses a symbol only offline/ or cli/ defines, and the
# plugins' .so files need none.
check-boundary: $(LIB) $(OFFLINE_LIB) $(CLI_OBJ) $(SPANK) $(LUAMOD)
	@python3 tests/check_boundary.py $(BUILD)

# The unit, Lua and integration suites against one Slurm: SLURM_PREFIX's
# (headers, libslurm, daemons), else the system's; one summary line per
# suite (tests/check_slurm.sh).
check-slurm: tests
	@SLURM_PREFIX=$(SLURM_PREFIX) sh tests/check_slurm.sh $(BUILD) $(TEST_BIN)

# check-slurm for the system's Slurm and each release built from source
# (contrib/slurm/build-slurm.sh, cached outside the clone): the version x
# suite table, also in build/slurm-versions.md.
check-versions:
	@sh tests/check_versions.sh $(SLURM_VERSIONS)

check-integration: tests
	@if [ -f $(BUILD)/autosize.so ]; then sh tests/run_lua_tests $(BUILD); fi
	@SLURM_PREFIX=$(SLURM_PREFIX) sh tests/integration/run $(BUILD)
	@SLURM_PREFIX=$(SLURM_PREFIX) AUTOSIZE_BUILD=$(BUILD) sh tests/check_live.sh

# A few thousand good, bad and option-less submissions against the testbed
# (SOAK_JOBS, default 3000, under 2 minutes): every one checked, and the
# daemons stay up.
soak: all
	tests/integration/soak $(BUILD)

# Published runs vs predictions; rewrites tests/validation/REPORT.md, then
# fails unless the held-out half's median error is at most 9%, 65% of it
# within 15% and 95% of it covered by its time limit, every run within 40%
# (known misses aside) and expressible (tests/validation/README.md);
# rewrites etc/published-runs.tsv, the scores plan --json cites (rebuild
# after it: the library compiles it in).
# The time limits' residuals in etc/perf.yaml must be the fit half's
# under the shipped constants (fit_perf residuals --check).
validate: $(BUILD)/tests/test_validation $(BUILD)/fit_perf
	AUTOSIZE_VALIDATE_STRICT=1 AUTOSIZE_REPORT=tests/validation/REPORT.md \
		AUTOSIZE_PUBLISHED=etc/published-runs.tsv \
		$(BUILD)/tests/test_validation
	$(BUILD)/fit_perf residuals --check

# The closed loop: a thousand synthetic finished jobs from a
# hidden true speed per partition, with noise and lying users; the
# prediction error before and after calibration and the jobs it takes to
# converge (tests/sim/simulate.c). Fails when it does not converge.
$(BUILD)/simulate: tests/sim/simulate.c $(LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(LIBS) $(LDFLAGS) $(CORE_LIBS)

simulate: $(BUILD)/simulate
	$(BUILD)/simulate etc/autosize.yaml

# Speed of a full search over a corpus of job specs (not a test).
$(BUILD)/bench: tests/bench/bench.c $(LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(LIBS) $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(CORE_LIBS)

$(BUILD)/decide_bench: tests/bench/decide_bench.c tests/bench/hostile.h $(LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(LIBS) $(LDFLAGS) $(CORE_LIBS)

bench: $(BUILD)/bench $(BUILD)/decide_bench
	$(BUILD)/bench
	$(BUILD)/decide_bench

# The fit of etc/perf.yaml's per-generation constants on the fit half of
# tests/validation/runs.yaml (not a test; usage in tests/fit/fit_perf.c):
# make fit FIT="hopper", FIT="cdna3 gemm_eff_max", FIT=residuals.
FIT ?= hopper
$(BUILD)/fit_perf: tests/fit/fit_perf.c $(LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(LIBS) $(LDFLAGS) $(CORE_LIBS)

fit: $(BUILD)/fit_perf
	$(BUILD)/fit_perf $(FIT)

# --- Hostile input ---

# The unit tests and the CLI rebuilt with AddressSanitizer and UBSan in
# their own folder. Plugins loaded by Slurm daemons and the Lua module are
# not run here (a sanitized .so needs the runtime preloaded into slurmctld
# or lua5.1); test_spank links the SPANK plugin's objects and does run.
ASAN_BUILD ?= build/asan
ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow \
	-fno-omit-frame-pointer \
	-fno-sanitize-recover=all
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
check-asan:
	$(ASAN_ENV) $(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) \
		OPT="-O1 -g" EXTRA_CFLAGS="$(ASAN_FLAGS)" \
		EXTRA_LDFLAGS="$(ASAN_FLAGS)" check-unit

# 1,000,000 plans and 10,000 policy reloads in one process: no byte lost
# (malloc statistics), flat RSS; then the reloads and fewer plans again
# under LeakSanitizer (20,000 plans, 2,000 reloads: ASan is ~40x slower
# on reloads), and under valgrind when it is installed.
LEAKS_PLANS ?= 1000000
LEAKS_RELOADS ?= 10000
$(BUILD)/leaks: tests/leak/leaks.c $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIBS) $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
		$(CORE_LIBS)

check-leaks: $(BUILD)/leaks
	$(BUILD)/leaks $(LEAKS_PLANS) $(LEAKS_RELOADS)
	$(ASAN_ENV) $(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) \
		OPT="-O1 -g" EXTRA_CFLAGS="$(ASAN_FLAGS)" \
		EXTRA_LDFLAGS="$(ASAN_FLAGS)" $(ASAN_BUILD)/leaks
	$(ASAN_ENV) $(ASAN_BUILD)/leaks 20000 2000
	@if command -v valgrind >/dev/null 2>&1; then \
		AUTOSIZE_LEAKS_NO_RSS=1 valgrind -q --leak-check=full --show-leak-kinds=all \
			--errors-for-leak-kinds=all --error-exitcode=1 \
			$(BUILD)/leaks 2000 200; \
	else echo "check-leaks: valgrind not installed, skipped (LeakSanitizer ran)"; fi

# libFuzzer harnesses (clang): the core is rebuilt with the fuzzer's
# coverage and ASan+UBSan in $(FUZZ_BUILD), apart from the normal build.
# `make fuzz` runs each for FUZZ_SECONDS on its seeds (tests/fuzz/corpus)
# plus what earlier runs found ($(FUZZ_BUILD)/corpus) and fails on any
# crash, leak, timeout or undefined behaviour. Copy a crash file into
# tests/fuzz/regressions/<harness>/: test_regressions replays it.
FUZZ_CC ?= clang
FUZZ_BUILD ?= build/fuzz
FUZZ_SECONDS ?= 24
FUZZ_TARGETS := parse json yaml jobenv plan decide record
FUZZ_BIN := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))
FUZZ_CFLAGS := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/targets.h tests/bench/hostile.h $(LIBS)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< $(LIBS) \
		$(LDFLAGS) $(CORE_LIBS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
		echo "fuzz: $(FUZZ_CC) not found (sh contrib/deps.sh)"; exit 1; }
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		OPT="-O1 -g" EXTRA_CFLAGS="$(FUZZ_CFLAGS)" $(FUZZ_BIN)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# What goes where: contrib/packaging/install.sh (one list for install and
# uninstall). The policy and the plugstack fragment are the site's: written
# only when absent (an edited policy is never overwritten), removed only
# when unchanged. Paths in job_submit.lua, the example policy and the man
# pages are this Makefile's folders.
INSTALL_ENV = DESTDIR='$(DESTDIR)' BUILD='$(BUILD)' VERSION='$(VERSION)' \
	bindir='$(bindir)' mandir='$(mandir)' pkgdatadir='$(pkgdatadir)' \
	sysconfdir='$(sysconfdir)' slurmlibdir='$(slurmlibdir)' \
	spooldir='$(spooldir)' systemdunitdir='$(systemdunitdir)' \
	luamoddir='$(luamoddir)'
install: all
	@$(INSTALL_ENV) sh contrib/packaging/install.sh install

uninstall:
	@$(INSTALL_ENV) sh contrib/packaging/install.sh uninstall

# A Debian package (dpkg-deb) from a staged make install, for the Slurm
# release it is built against (its version: 0.2.0+slurm22.05): the policy,
# job_submit.lua and the commented-out plugstack line are conffiles;
# nothing is activated (contrib/packaging/mkdeb.sh says why). Prints the
# .deb's path; tests/check_deb.sh installs and removes it.
deb: all
	@sh contrib/packaging/mkdeb.sh $(BUILD) $(VERSION) $(SLURM_PREFIX)

# An RPM for RHEL-family clusters (contrib/packaging/rpm/slurm-autosize.spec)
# built with rpmbuild for the Slurm whose headers the build uses; prints
# its path. tests/check_rpm.sh checks its files, config files, Requires
# and the scriptlet that refuses another Slurm release.
rpm: all
	@sh contrib/packaging/mkrpm.sh $(BUILD) $(VERSION) $(SLURM_PREFIX)

check-rpm: all
	@AUTOSIZE_BUILD=$(BUILD) SLURM_PREFIX=$(SLURM_PREFIX) sh tests/check_rpm.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Unit tests that link plugin objects (they override the tests/% rule
# above). gpucheck.o needs only hwloc; test_spank links every object of
# spank_autosize.so and defines the spank_*/slurm_* functions itself, as
# slurmstepd and sbatch do (no -lslurm).
PLUGIN_TEST_CFLAGS := -Itests -Iplugin $(HWLOC_CFLAGS) $(SLURM_CFLAGS)
$(BUILD)/tests/test_gpucheck: tests/test_gpucheck.c $(BUILD)/plugin/gpucheck.o \
		$(LIB) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PLUGIN_TEST_CFLAGS) -o $@ $< $(BUILD)/plugin/gpucheck.o \
		$(LIB) $(LDFLAGS) $(CORE_LIBS) $(HWLOC_LIBS) $(CMOCKA_LIBS)
# test_live reads GRES strings and writes inventories with the CLI's
# live objects (libslurm linked when the CLI has it).
LIVE_TEST_OBJ := $(addprefix $(BUILD)/cli/,live.o live_cmd.o live_limits.o \
	inventory.o opts.o acct.o chain_end.o)
$(BUILD)/tests/test_live: tests/test_live.c $(LIVE_TEST_OBJ) \
		$(LIBS) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SLURM_CFLAGS) $(if $(SLURM_H),-DAUTOSIZE_HAVE_SLURM) \
		-Itests -Icli -o $@ $< $(LIVE_TEST_OBJ) $(LIBS) $(LDFLAGS) $(CORE_LIBS) \
		$(SLURM_LIBS) $(CMOCKA_LIBS)
# test_chart draws with the CLI's chart, markup and HTML objects.
CHART_TEST_OBJ := $(addprefix $(BUILD)/cli/,chart.o chart_axis.o markup.o \
	html.o)
$(BUILD)/tests/test_chart: tests/test_chart.c $(CHART_TEST_OBJ) $(LIBS) \
		tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -Icli -o $@ $< $(CHART_TEST_OBJ) $(LIBS) \
		$(LDFLAGS) $(CORE_LIBS) $(CMOCKA_LIBS)
# The browser test's page with planted markup (tests/browser/fixture.c).
$(BUILD)/tests/browser_fixture: tests/browser/fixture.c $(CHART_TEST_OBJ) \
		$(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icli -o $@ $< $(CHART_TEST_OBJ) $(LIBS) $(LDFLAGS) \
		$(CORE_LIBS)
$(BUILD)/tests/test_spank: tests/test_spank.c $(SPANK_OBJ) $(LIB) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PLUGIN_TEST_CFLAGS) -o $@ $< $(SPANK_OBJ) \
		$(LIB) $(LDFLAGS) $(CORE_LIBS) $(HWLOC_LIBS) $(CMOCKA_LIBS)
