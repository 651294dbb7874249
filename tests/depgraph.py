#!/usr/bin/env python3
"""The link-time dependency graph between the modules of util/, core/,
offline/ and cli/ (the command), from the built objects: module A depends
on B when A uses a symbol B defines (nm). Prints each module's
dependencies and the cycles (strongly connected components).

    tests/depgraph.py [BUILD]          # print the graph and the cycles
    tests/depgraph.py --check [BUILD]  # fail on a cycle not allowed below

A cycle means neither module can be read, tested or replaced without the
other. The one allowed by design is memory <-> perf: the two halves of one
model, each reading a term the other computes (sizing_recompute_share,
sizing_trained_params_per_gpu). Link-level edges only: a header shared by
two modules is no dependency until one calls the other.
"""
import os
import subprocess
import sys

GROUPS = ("util", "core", "offline", "cli")

ALLOWED = [
    {"memory", "perf"},
]


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True,
                         text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRCGSV":
            defined.add(name)
    return defined, used


def graph(build):
    mods = {}
    for g in GROUPS:
        d = os.path.join(build, g)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            # an object whose source is gone is stale, not a module
            if f.endswith(".o") and os.path.exists(
                    os.path.join(g, f[:-2] + ".c")):
                mods[f[:-2]] = symbols(os.path.join(d, f))
    owner = {}
    for m, (defined, _) in mods.items():
        for s in defined:
            owner[s] = m
    deps = {m: sorted({owner[s] for s in used if s in owner} - {m})
            for m, (_, used) in mods.items()}
    return deps


def cycles(deps):
    """Tarjan's strongly connected components of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    build = args[0] if args else os.environ.get("AUTOSIZE_BUILD", "build")
    deps = graph(build)
    if not deps:
        print("depgraph: no objects under %s (make first)" % build)
        return 1
    comps = cycles(deps)
    if not check:
        for m in sorted(deps):
            print("%-16s -> %s" % (m, " ".join(deps[m])))
        print()
    bad = 0
    for c in sorted(comps, key=len, reverse=True):
        ok = any(c <= a for a in ALLOWED)
        if not ok:
            bad += 1
        if not check or not ok:
            print("cycle of %d%s: %s" % (len(c), "" if ok else
                                          " (not allowed)",
                                          " ".join(sorted(c))))
    if check:
        print("depgraph: %d modules, %d cycles, %d not allowed" %
              (len(deps), len(comps), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
