#!/usr/bin/env python3
"""The process boundary (doc/architecture.md): what slurmctld (the Lua
module) and slurmstepd, sbatch and srun (the SPANK plugin) load never
depends on what only the autosize command links.

    tests/check_boundary.py [BUILD]

Sides, lowest first; a side may use its own and those it lists:

    util     primitives (UTF-8, JSON, YAML tree, files, spawn, errors)
    core     the sizing core                  -> util
    plugin   SPANK plugin, Lua module         -> util, core
    offline  the command's library            -> util, core
    cli      the autosize command             -> every side

A header belongs to the side of its folder; include/autosize/N.h (and
autosize.h) to the side of N.c's folder (core when there is none).
Checked: every #include "..." of every source and header, every symbol
each built object needs (nm), and the two plugin .so files: none needs
or holds a symbol that offline/ or cli/ defines. Fails naming each use.
"""
import os
import sys

from depgraph import symbols  # nm -P: (defined, used)

SIDES = ("util", "core", "plugin", "offline", "cli")
ALLOWED = {
    "util": {"util"},
    "core": {"util", "core"},
    "plugin": {"util", "core", "plugin"},
    "offline": {"util", "core", "offline"},
    "cli": set(SIDES),
}
DAEMON_SO = ("spank_autosize.so", "autosize.so")


def module_sides():
    """N -> the side whose folder holds N.c."""
    owner = {}
    for side in SIDES:
        if os.path.isdir(side):
            for f in os.listdir(side):
                if f.endswith(".c"):
                    owner[f[:-2]] = side
    return owner


def header_side(path, owner):
    parts = path.split(os.sep)
    if parts[0] in SIDES:
        return parts[0]
    if parts[0] == "include":
        name = os.path.splitext(parts[-1])[0]
        return owner.get(name, "core")
    return None


def resolve(inc, src_dir):
    for d in (src_dir, "include", "util", "core"):
        p = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(p):
            return p
    return None


def include_errors(owner):
    errors = []
    for side in SIDES:
        if not os.path.isdir(side):
            continue
        for f in sorted(os.listdir(side)):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(side, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    s = line.strip()
                    if not s.startswith("#include \""):
                        continue
                    inc = s.split('"')[1]
                    hp = resolve(inc, side)
                    hs = header_side(hp, owner) if hp else None
                    if hs and hs not in ALLOWED[side]:
                        errors.append("%s:%d: %s (%s) includes %s (%s)"
                                      % (path, n, side, f, hp, hs))
    # the public headers: a daemon-side API pulling in a command-side one
    inc_dir = os.path.join("include", "autosize")
    for f in sorted(os.listdir(inc_dir)) + ["../autosize.h"]:
        path = os.path.normpath(os.path.join(inc_dir, f))
        side = header_side(path, owner)
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                s = line.strip()
                if s.startswith("#include \""):
                    hp = resolve(s.split('"')[1], inc_dir)
                    hs = header_side(hp, owner) if hp else None
                    if hs and hs not in ALLOWED[side]:
                        errors.append("%s:%d: %s header includes %s (%s)"
                                      % (path, n, side, hp, hs))
    return errors


def link_errors(build):
    objs = {}
    for side in SIDES:
        d = os.path.join(build, side)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".o") and os.path.exists(
                    os.path.join(side, f[:-2] + ".c")):
                objs[(side, f[:-2])] = symbols(os.path.join(d, f))
    owner = {}
    for (side, mod), (defined, _) in objs.items():
        for s in defined:
            owner[s] = (side, mod)
    errors = []
    for (side, mod), (_, used) in sorted(objs.items()):
        for s in sorted(used):
            if s in owner and owner[s][0] not in ALLOWED[side]:
                errors.append("%s/%s.o uses %s from %s/%s.o"
                              % (side, mod, s, *owner[s]))
    command = {s for s, (side, _) in owner.items()
               if side in ("offline", "cli")}
    for so in DAEMON_SO:
        path = os.path.join(build, so)
        if not os.path.exists(path):
            continue
        defined, used = symbols(path)
        for s in sorted((defined | used) & command):
            errors.append("%s %s %s, which %s/%s.o defines"
                          % (path, "holds" if s in defined else "needs",
                             s, *owner[s]))
    return errors, len(objs)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    owner = module_sides()
    errors = include_errors(owner)
    link, n = link_errors(build)
    errors += link
    for e in errors:
        print("boundary: " + e)
    print("boundary: %d objects, %d uses across the boundary"
          % (n, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
