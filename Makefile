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
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
CORE_LIBS := $(YAML_LIBS) -lm

CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC)) $(BUILD)/gen/embedded.o
CLI_SRC := $(wildcard contrib/cli/*.c)
CLI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
EMBED := etc/gpus.yaml etc/models.yaml

LIB := $(BUILD)/libautosize.a
CLI := $(BUILD)/autosize

.PHONY: all check clean install tests validate bench
all: $(LIB) $(CLI)

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

$(CLI): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDFLAGS) $(CORE_LIBS)

$(BUILD)/tests/%: tests/%.c $(LIB) tests/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(LIB) $(LDFLAGS) $(CORE_LIBS) $(CMOCKA_LIBS)

tests: $(TEST_BIN) $(CLI)

# Every test binary runs; the summary lines are cmocka's.
check: tests
	@sh tests/run.sh $(BUILD) $(TEST_BIN)

# Published runs vs predictions; rewrites tests/validation/REPORT.md.
validate: $(BUILD)/tests/test_validation
	AUTOSIZE_REPORT=tests/validation/REPORT.md $(BUILD)/tests/test_validation

install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(sysconfdir)/autosize
	install -m 0755 $(CLI) $(DESTDIR)$(bindir)/autosize
	install -m 0644 etc/gpus.yaml etc/models.yaml $(DESTDIR)$(sysconfdir)/autosize/
	install -m 0644 etc/autosize.yaml $(DESTDIR)$(sysconfdir)/autosize/autosize.yaml

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
