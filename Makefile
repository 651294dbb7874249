# slurm-autosize: plain Makefile (GNU make). See README.md.
prefix ?= /usr/local
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
libdir ?= $(exec_prefix)/lib/x86_64-linux-gnu/slurm-wlm
sysconfdir ?= /etc/slurm
datadir ?= $(prefix)/share
DESTDIR ?=

CC ?= cc
PKG_CONFIG ?= pkg-config
BUILD ?= build

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIC
OPT ?= -O2 -g
CFLAGS ?=
override CFLAGS += -std=gnu11 $(OPT) $(WARN) $(HARDEN) -MMD -MP \
	-Iinclude -Icore $(EXTRA_CFLAGS)
LDHARDEN := -Wl,-z,relro,-z,now -Wl,-z,noexecstack
override LDFLAGS += $(LDHARDEN) $(EXTRA_LDFLAGS)

YAML_LIBS := $(shell $(PKG_CONFIG) --libs yaml-0.1 2>/dev/null || echo -lyaml)
HWLOC_CFLAGS := $(shell $(PKG_CONFIG) --cflags hwloc 2>/dev/null)
HWLOC_LIBS := $(shell $(PKG_CONFIG) --libs hwloc 2>/dev/null || echo -lhwloc)
LUA_CFLAGS := $(shell $(PKG_CONFIG) --cflags lua5.1 2>/dev/null || echo -I/usr/include/lua5.1)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
CORE_LIBS := $(YAML_LIBS) -lm

CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC)) $(BUILD)/gen/embedded.o
CLI_SRC := $(wildcard contrib/cli/*.c)
CLI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
EMBED := etc/gpus.yaml etc/models.yaml

# Slurm plugins: thin adapters over the core (see plugin/).
SPANK_SRC := $(wildcard plugin/spank*.c plugin/gpucheck.c)
SPANK_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SPANK_SRC))
LUAMOD_SRC := $(wildcard plugin/lua*.c)
LUAMOD_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LUAMOD_SRC))

LIB := $(BUILD)/libautosize.a
CLI := $(BUILD)/autosize
SPANK := $(if $(SPANK_SRC),$(BUILD)/spank_autosize.so)
LUAMOD := $(if $(LUAMOD_SRC),$(BUILD)/autosize.so)

.PHONY: all check clean install tests validate bench
all: $(LIB) $(CLI) $(SPANK) $(LUAMOD)

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

$(BUILD)/plugin/%.o: plugin/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HWLOC_CFLAGS) $(LUA_CFLAGS) -c -o $@ $<

# The host process (sbatch, slurmstepd) provides the slurm_* and spank_*
# symbols: no -lslurm. Only the plugin's entry points are exported.
$(SPANK): $(SPANK_OBJ) $(LIB) plugin/spank.map
	$(CC) -shared -o $@ $(SPANK_OBJ) $(LIB) $(LDFLAGS) \
		-Wl,--version-script=plugin/spank.map $(CORE_LIBS) $(HWLOC_LIBS)

# Lua 5.1 C module for job_submit.lua: slurmctld has liblua5.1 loaded
# globally, so no -llua (see README).
$(LUAMOD): $(LUAMOD_OBJ) $(LIB) plugin/lua.map
	$(CC) -shared -o $@ $(LUAMOD_OBJ) $(LIB) $(LDFLAGS) \
		-Wl,--version-script=plugin/lua.map $(CORE_LIBS)

$(CLI): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDFLAGS) $(CORE_LIBS)

$(BUILD)/tests/%: tests/%.c $(LIB) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(LIB) $(LDFLAGS) $(CORE_LIBS) $(CMOCKA_LIBS)

tests: $(TEST_BIN) $(CLI) $(SPANK) $(LUAMOD)

# Every unit test binary runs (cmocka summary lines), then the
# integration tests against a real Slurm when tests/integration exists.
check: tests
	@sh tests/run.sh $(BUILD) $(TEST_BIN)
	@if [ -f $(BUILD)/autosize.so ]; then sh tests/run_lua_tests $(BUILD); fi
	@if [ -x tests/integration/run ]; then tests/integration/run $(BUILD); fi

# Published runs vs predictions; rewrites tests/validation/REPORT.md.
validate: $(BUILD)/tests/test_validation
	AUTOSIZE_REPORT=tests/validation/REPORT.md $(BUILD)/tests/test_validation

# Speed of a full search over a corpus of job specs (not a test).
$(BUILD)/bench: tests/bench/bench.c $(LIB)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(CORE_LIBS)

bench: $(BUILD)/bench
	$(BUILD)/bench

install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(sysconfdir)/autosize
	install -m 0755 $(CLI) $(DESTDIR)$(bindir)/autosize
	install -m 0644 etc/gpus.yaml etc/models.yaml $(DESTDIR)$(sysconfdir)/autosize/
	install -m 0644 etc/autosize.yaml $(DESTDIR)$(sysconfdir)/autosize/autosize.yaml
ifneq ($(SPANK),)
	install -d $(DESTDIR)$(libdir) $(DESTDIR)$(sysconfdir)/plugstack.conf.d
	install -m 0755 $(SPANK) $(DESTDIR)$(libdir)/spank_autosize.so
	printf 'optional %s/spank_autosize.so policy=%s/autosize/autosize.yaml\n' \
		'$(libdir)' '$(sysconfdir)' > $(DESTDIR)$(sysconfdir)/plugstack.conf.d/autosize.conf
endif
ifneq ($(LUAMOD),)
	install -d $(DESTDIR)$(libdir)/lua
	install -m 0755 $(LUAMOD) $(DESTDIR)$(libdir)/lua/autosize.so
	install -m 0644 etc/job_submit.lua $(DESTDIR)$(sysconfdir)/autosize/job_submit.lua
endif

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Unit tests that link plugin objects (they override the tests/% rule
# above). gpucheck.o needs only hwloc; test_spank links every object of
# spank_autosize.so and defines the spank_*/slurm_* functions itself, as
# slurmstepd and sbatch do (no -lslurm).
PLUGIN_TEST_CFLAGS := -Itests -Iplugin $(HWLOC_CFLAGS)
$(BUILD)/tests/test_gpucheck: tests/test_gpucheck.c $(BUILD)/plugin/gpucheck.o \
		$(LIB) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PLUGIN_TEST_CFLAGS) -o $@ $< $(BUILD)/plugin/gpucheck.o \
		$(LIB) $(LDFLAGS) $(CORE_LIBS) $(HWLOC_LIBS) $(CMOCKA_LIBS)
$(BUILD)/tests/test_spank: tests/test_spank.c $(SPANK_OBJ) $(LIB) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PLUGIN_TEST_CFLAGS) -o $@ $< $(SPANK_OBJ) \
		$(LIB) $(LDFLAGS) $(CORE_LIBS) $(HWLOC_LIBS) $(CMOCKA_LIBS)
