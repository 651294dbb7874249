#!/usr/bin/env python3
"""slurmctld's metrics file, as node exporter's textfile collector would
read it: each copy parsed with the Prometheus client's own parser
(python3-prometheus-client), each family typed, the histogram whole
(cumulative buckets, +Inf equal to its count, its count equal to the
decisions counted), and the counters' growth between two copies exactly
as expected:

    metrics_check.py BEFORE AFTER 'autosize_decisions_total{action="warn"}=1' ...

Samples not named must not move, except the histogram and the layouts
evaluated, which grow with any decision. Exit 0 when all holds, else 1
with one line per problem; 2 when the parser is not installed.
"""
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("python3-prometheus-client is not installed (contrib/deps.sh)")
    sys.exit(2)

TYPES = {
    "autosize_decisions": "counter",
    "autosize_refusals": "counter",
    "autosize_errors": "counter",
    "autosize_decision_seconds": "histogram",
    "autosize_layouts_evaluated": "counter",
}
GROWS = ("autosize_decision_seconds", "autosize_layouts_evaluated")


def key(name, labels):
    inner = ",".join('%s="%s"' % kv for kv in sorted(labels.items()))
    return "%s{%s}" % (name, inner) if inner else name


def load(path, problems):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    samples, types = {}, {}
    try:
        for fam in text_string_to_metric_families(text):
            types[fam.name] = fam.type
            for s in fam.samples:
                samples[key(s.name, s.labels)] = s.value
    except ValueError as e:
        problems.append("%s: not Prometheus text: %s" % (path, e))
        return samples
    for name, kind in TYPES.items():
        if types.get(name) != kind:
            problems.append("%s: %s is %s, want %s" %
                            (path, name, types.get(name), kind))
    buckets = sorted((float(k.split('le="')[1].split('"')[0]), v)
                     for k, v in samples.items()
                     if k.startswith("autosize_decision_seconds_bucket"))
    count = samples.get("autosize_decision_seconds_count")
    if any(a[1] > b[1] for a, b in zip(buckets, buckets[1:])):
        problems.append("%s: buckets not cumulative" % path)
    if not buckets or buckets[-1][0] != float("inf") or \
            buckets[-1][1] != count:
        problems.append("%s: +Inf bucket %s, count %s" %
                        (path, buckets[-1] if buckets else None, count))
    decided = sum(v for k, v in samples.items()
                  if k.startswith("autosize_decisions_total"))
    if decided != count:
        problems.append("%s: %s decisions counted, %s timed" %
                        (path, decided, count))
    return samples


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 1
    problems = []
    before, after = load(argv[1], problems), load(argv[2], problems)
    want = {}
    for arg in argv[3:]:
        name, delta = arg.rsplit("=", 1)
        want[name] = float(delta)
    for name in sorted(set(before) | set(after) | set(want)):
        grew = after.get(name, 0) - before.get(name, 0)
        if name in want:
            if grew != want[name]:
                problems.append("%s grew by %g, want %g" %
                                (name, grew, want[name]))
        elif grew != 0 and not name.startswith(GROWS):
            problems.append("%s grew by %g, want 0" % (name, grew))
        elif grew < 0:
            problems.append("%s fell by %g" % (name, -grew))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
