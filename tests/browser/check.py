#!/usr/bin/env python3
"""The HTML pages as a browser shows them: each page of PAGES is written
by its command, loaded in headless Chromium with JavaScript off (cdp.py),
and its DOM compared with the JSON of the same request; a screenshot of
each goes to BUILD/screenshots/NAME.png.

    tests/browser/check.py BUILD CHROMIUM   (make check-browser runs it)

A page is Page(name, html, json, expect): html, the command that writes
it ("{out}" is the file); json, the command whose standard output is its
JSON; expect(json) the expectation, a dict:

    {"charts": [{"id": svg id, "points": [{"series", "x", "y"}, ...],
                 "highlight": {"x", "y"} or None, "skipped": N (optional)}],
     "tables": [{"id": table id, "rows": N, "highlighted": N}] (optional),
     "texts": [text that must show as text, e.g. planted markup] (optional)}

Every page must also: have no script, frame, object, image, link or form
element, no on* handler and no href/src (nothing fetched, nothing run);
carry the Content-Security-Policy that forbids scripts; have each point
inside its plot's axis ranges; draw each series (a partition of the
report) with one marker and colour on all its charts. To check another
page, add a Page to
PAGES (its `--html {out}` and `--json` commands and a function from its
JSON to the expectation): the plan pages, the planted-markup fixture,
`autosize report`'s page (report_expect) and `autosize replay`'s
(replay_expect).
"""
import calendar
import collections
import json
import os
import subprocess
import sys
import time
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, BrowserError  # noqa: E402

Page = collections.namedtuple("Page", "name html json expect")

# A rendered value against the JSON: the chart writes 6 significant
# figures (%.6g), the JSON 2 or 3 decimals.
REL_TOL = 1e-5
ABS_TOL = 0.006

FORBIDDEN = {"script", "iframe", "frame", "object", "embed", "img",
             "link", "base", "form", "input", "audio", "video",
             "foreignobject", "a", "use", "image"}


def plan_expect(rows):
    """`autosize plan --table --json` rows -> the plan page's chart: x the
    cost when every size has one in one currency, else GPU-hours (as
    doc/users.md says); one series per "partition (GPU)", the GPU left
    out where it is the partition's name (a --gpu reference server)."""
    priced = all(r["cost"] > 0 and r["currency"] == rows[0]["currency"]
                 for r in rows)
    key = "cost" if priced else "gpu_hours"
    chosen = [r for r in rows if r["chosen"]]
    return {
        "charts": [{
            "id": "plan",
            "points": [{"series": ("%s (%s)" % (r["partition"], r["gpu"])
                                   if r["gpu"] not in ("", r["partition"])
                                   else r["partition"]),
                        "x": r[key], "y": r["train_hours"]} for r in rows],
            "highlight": ({"x": chosen[0][key], "y": chosen[0]["train_hours"]}
                          if chosen else None),
            "skipped": 0,
        }],
        "tables": [{"id": "sizes", "rows": len(rows),
                    "highlighted": len(chosen)}],
    }


def report_expect(rep):
    """`autosize report --json` -> the report page (cli/report_html.c):
    speed (predicted, measured tokens/s of each measured job) and limits
    (time limit, run time in hours), one series per partition; the
    weekly median error and limit hits (x: the week's Monday, seconds
    since 1970); the tables; the planted names of the jobs that hit
    their limit as text; the preempted and requeued runs' table."""
    def monday(w):
        return calendar.timegm(time.strptime(w["monday"],
                                             "%Y-%m-%dT%H:%M:%S"))
    jobs = rep["jobs"]
    timeouts = [j for j in jobs if j["timeout"]]
    chart = lambda cid, pts: {"id": cid, "points": pts, "highlight": None,
                              "skipped": 0}
    return {
        "charts": [
            chart("speed", [{"series": j["partition"],
                             "x": j["predicted_tokens_per_s"],
                             "y": j["measured_tokens_per_s"]}
                            for j in jobs if j["measured_tokens_per_s"]]),
            chart("limits", [{"series": j["partition"],
                              "x": j["time_limit_s"] / 3600,
                              "y": j["elapsed_s"] / 3600}
                             for j in jobs
                             if j["time_limit_s"] and j["elapsed_s"] > 0]),
            chart("weekly-error", [{"series": w["partition"],
                                    "x": monday(w),
                                    "y": w["median_abs_error"]}
                                   for w in rep["weeks"]
                                   if w["median_abs_error"] is not None]),
            chart("weekly-hits", [{"series": w["partition"],
                                   "x": monday(w), "y": w["timeouts"]}
                                  for w in rep["weeks"]]),
        ],
        "tables": [
            {"id": "groups", "rows": len(rep["groups"]), "highlighted": 0},
            {"id": "timeouts", "rows": min(50, len(timeouts)),
             "highlighted": 0},
            {"id": "interrupted", "rows": min(50, len(
                [j for j in jobs if j["preempted"] or j["requeued"]])),
             "highlighted": 0},
            {"id": "warnings", "rows": len(rep["warnings"]),
             "highlighted": 0},
            {"id": "refusals", "rows": len(rep["refusals"]["kinds"]),
             "highlighted": 0},
        ],
        "texts": [j["name"] for j in timeouts if "<" in j["name"]],
    }


def replay_expect(rep):
    """`autosize replay --json` -> the replay page (cli/replay_html.c): per
    job that holds something under both policies, GPU-hours and time
    limit (hours) under the current policy (x) against the one tried
    (y), one series per recorded partition; the table of the jobs that
    change, the refused ones highlighted; the planted names as text."""
    jobs = rep["jobs"]
    changed = [j for j in jobs if j["changed"]]
    chart = lambda cid, key, scale: {"id": cid, "highlight": None,
                                     "skipped": 0, "points": [
        {"series": j["partition"], "x": j["before"][key] / scale,
         "y": j["after"][key] / scale}
        for j in jobs if j["before"][key] > 0 and j["after"][key] > 0]}
    return {
        "charts": [chart("gpu-hours", "gpu_hours", 1),
                   chart("limits", "time_limit_min", 60)],
        "tables": [{"id": "changed", "rows": min(200, len(changed)),
                    "highlighted": len([j for j in changed
                                        if "refused" in j["changed"]])}],
        "texts": [j["name"] for j in changed if "<" in j["name"]],
    }


def identity(expected):
    return expected


def pages(build):
    cli = os.path.join(build, "autosize")
    fixture = os.path.join(build, "tests", "browser_fixture")
    plan = [cli, "plan", "--model=llama-3-8b", "--train-tokens=100B",
            "--train-time=5d"]
    priced = plan + ["--policy=etc/autosize.yaml"]
    # finished jobs with markup in their names, two partitions, three
    # weeks; refusals from a slurmctld log line of each kind
    ctld = os.path.join(build, "browser", "slurmctld.log")
    with open(ctld, "w") as f:
        f.write("[2026-11-03T10:00:00.000] lua: autosize: refused: "
                "reason=input what=--model-params uid=1000: <b>no</b>\n"
                "[2026-11-03T10:00:01.000] lua: autosize: refused: "
                "reason=unfit what=- uid=1001: too big\n")
    report = [cli, "report", "--ctld-log", ctld,
              "tests/data/report-jobs.jsonl"]
    unpriced = plan + ["--policy=none", "--gpu=h100"]
    # the same jobs decided again under a smaller gpu partition, a lower
    # time reserve and a lowprio partition, against the testbed's policy
    replay = [cli, "replay", "--policy", "tests/data/replay-policy.yaml",
              "--baseline", "contrib/testbed/autosize.yaml",
              "tests/data/report-jobs.jsonl"]
    # the report of the integration test's real jobs (tests/integration/
    # run, report_shows_closed_loop), when that ran before
    testbed = [os.path.join(build, "report-testbed." + x)
               for x in ("html", "json")]
    extra = []
    if all(os.path.exists(f) for f in testbed):
        extra.append(Page("report-testbed", ["cp", testbed[0], "{out}"],
                          ["cat", testbed[1]], report_expect))
    else:
        print("check-browser: report-testbed: no integration run yet, "
              "skipped (make check-integration writes it)")
    return extra + [
        Page("plan", priced + ["--html", "{out}"],
             priced + ["--table", "--json"], plan_expect),
        Page("plan-gpu-hours", unpriced + ["--html", "{out}"],
             unpriced + ["--table", "--json"], plan_expect),
        Page("fixture", [fixture, "--html", "{out}"], [fixture, "--json"],
             identity),
        Page("report", report + ["--html", "{out}"], report + ["--json"],
             report_expect),
        Page("replay", replay + ["--html", "{out}"], replay + ["--json"],
             replay_expect),
    ]


class Node:
    __slots__ = ("tag", "attrs", "parent", "children")

    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children = []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


class Tree(HTMLParser):
    """The DOM as Chromium serialized it: elements and text."""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input",
            "link", "meta", "source", "track", "wbr"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root
        self.texts = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.cur)
        self.cur.children.append(node)
        if tag not in self.VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, dict(attrs), self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.texts.append(data)


def near(a, b):
    return abs(a - b) <= REL_TOL * abs(b) + ABS_TOL


def check_safe(tree, errors):
    """Nothing that runs or fetches; the policy that forbids it."""
    csp = False
    for n in tree.root.walk():
        if n.tag in FORBIDDEN:
            errors.append("a <%s> element" % n.tag)
        for name in n.attrs:
            if name.startswith("on") or name in ("href", "src",
                                                 "xlink:href", "action"):
                errors.append("<%s %s=...>" % (n.tag, name))
        if n.tag == "meta" and \
                n.attrs.get("http-equiv") == "Content-Security-Policy":
            csp = "default-src 'none'" in (n.attrs.get("content") or "")
    if not csp:
        errors.append("no Content-Security-Policy default-src 'none'")


def check_chart(tree, want, errors):
    svg = [n for n in tree.root.walk()
           if n.tag == "svg" and n.attrs.get("id") == want["id"]]
    if len(svg) != 1:
        errors.append("%d <svg id=%s>" % (len(svg), want["id"]))
        return 0
    svg = svg[0]
    name = "chart " + want["id"]
    pts = [n for n in svg.walk() if "pt" in n.classes()]
    plot = [n for n in svg.walk() if "plot" in n.classes()]
    if len(pts) != len(want["points"]):
        errors.append("%s: %d points, the JSON %d" % (name, len(pts),
                                                     len(want["points"])))
    if svg.attrs.get("data-points") != str(len(pts)):
        errors.append("%s: data-points %s, %d drawn" % (
            name, svg.attrs.get("data-points"), len(pts)))
    if "skipped" in want and \
            svg.attrs.get("data-skipped") != str(want["skipped"]):
        errors.append("%s: data-skipped %s, want %d" % (
            name, svg.attrs.get("data-skipped"), want["skipped"]))
    left = list(want["points"])
    for p in pts:
        x, y = float(p.attrs["data-x"]), float(p.attrs["data-y"])
        match = [w for w in left if w["series"] == p.attrs["data-series"]
                 and near(x, w["x"]) and near(y, w["y"])]
        if not match:
            errors.append("%s: point %s (%g, %g) is not in the JSON" % (
                name, p.attrs["data-series"], x, y))
            continue
        left.remove(match[0])
    if len(plot) != 1:
        errors.append("%s: %d plot groups" % (name, len(plot)))
        return len(pts)
    a = plot[0].attrs
    lo_x, hi_x = float(a["data-x-min"]), float(a["data-x-max"])
    lo_y, hi_y = float(a["data-y-min"]), float(a["data-y-max"])
    for axis, lo in (("x", lo_x), ("y", lo_y)):
        if a["data-%s-scale" % axis] == "log" and not lo > 0:
            errors.append("%s: log %s axis from %g" % (name, axis, lo))
    for p in pts:
        x, y = float(p.attrs["data-x"]), float(p.attrs["data-y"])
        if not (lo_x <= x <= hi_x and lo_y <= y <= hi_y):
            errors.append("%s: point (%g, %g) outside x %g..%g, y %g..%g"
                          % (name, x, y, lo_x, hi_x, lo_y, hi_y))
    hl = [n for n in svg.walk() if "hl" in n.classes()]
    if want["highlight"] is None:
        if hl:
            errors.append("%s: a highlight, the JSON has none" % name)
    elif len(hl) != 1:
        errors.append("%s: %d highlights" % (name, len(hl)))
    elif not (near(float(hl[0].attrs["data-x"]), want["highlight"]["x"]) and
              near(float(hl[0].attrs["data-y"]), want["highlight"]["y"])):
        errors.append("%s: highlight (%s, %s), the JSON's chosen (%g, %g)"
                      % (name, hl[0].attrs["data-x"], hl[0].attrs["data-y"],
                         want["highlight"]["x"], want["highlight"]["y"]))
    return len(pts)


def check_styles(tree, errors):
    """A series (a partition of the report) looks the same on every chart
    of the page: one marker (data-style), fill and stroke colour."""
    seen = {}
    for p in tree.root.walk():
        if "pt" not in p.classes():
            continue
        look = (p.tag, p.attrs.get("data-style"), p.attrs.get("fill"),
                p.attrs.get("stroke"))
        seen.setdefault(p.attrs.get("data-series"), set()).add(look)
    for series, looks in sorted(seen.items()):
        if len(looks) > 1:
            errors.append("series %s is drawn %d ways on the page: %s" % (
                series, len(looks), sorted(looks)))


def check_table(tree, want, errors):
    tables = [n for n in tree.root.walk()
              if n.tag == "table" and n.attrs.get("id") == want["id"]]
    if len(tables) != 1:
        errors.append("%d <table id=%s>" % (len(tables), want["id"]))
        return
    body = [n for n in tables[0].walk() if n.tag == "tbody"]
    rows = [n for b in body for n in b.children if n.tag == "tr"]
    hl = [r for r in rows if "hl" in r.classes()]
    if len(rows) != want["rows"] or len(hl) != want["highlighted"]:
        errors.append("table %s: %d rows (%d highlighted), want %d (%d)" % (
            want["id"], len(rows), len(hl), want["rows"],
            want["highlighted"]))


def check_page(page, build, browser, shots):
    """Errors of one page (empty: it passed), and a summary."""
    out = os.path.join(build, "browser", page.name + ".html")
    shot = os.path.join(shots, page.name + ".png")
    html = [a.replace("{out}", out) for a in page.html]
    r = subprocess.run(html, capture_output=True, text=True)
    if r.returncode not in (0, 1) or not os.path.exists(out):
        return ["%s: exit %d: %s" % (" ".join(html), r.returncode,
                                     r.stderr.strip())], ""
    r = subprocess.run(page.json, capture_output=True, text=True)
    try:
        want = page.expect(json.loads(r.stdout))
    except (ValueError, KeyError, IndexError) as e:
        return ["%s: no JSON (%s): %s" % (" ".join(page.json), e,
                                          r.stderr.strip())], ""
    tree = Tree(browser.render(out, shot))
    errors = []
    check_safe(tree, errors)
    points = sum(check_chart(tree, c, errors) for c in want["charts"])
    check_styles(tree, errors)
    for t in want.get("tables", []):
        check_table(tree, t, errors)
    text = "".join(tree.texts)
    for s in want.get("texts", []):
        if s not in text:
            errors.append("%r does not show as text" % s)
    return errors, "%d points, %d chart(s), %d table(s), %d planted " \
        "text(s); screenshot %s" % (points, len(want["charts"]),
                                    len(want.get("tables", [])),
                                    len(want.get("texts", [])), shot)


def check_scripts_off(build, browser, shots):
    """The harness itself: a page's script must not run."""
    path = os.path.join(build, "browser", "canary.html")
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><p id=canary>static</p><script>document."
                "getElementById('canary').textContent='script ran'"
                "</script>\n")
    dom = browser.render(path, os.path.join(shots, "canary.png"))
    return [] if '<p id="canary">static</p>' in dom else \
        ["JavaScript is not off in the browser (canary page)"]


def main(argv):
    build, chromium = argv[0], argv[1]
    shots = os.path.join(build, "screenshots")
    os.makedirs(shots, exist_ok=True)
    os.makedirs(os.path.join(build, "browser"), exist_ok=True)
    t0 = time.time()
    failed = 0
    browser = Browser(chromium)
    try:
        errors = check_scripts_off(build, browser, shots)
        if errors:
            print("check-browser: FAILED: " + errors[0])
            return 1
        todo = pages(build)
        for page in todo:
            errors, summary = check_page(page, build, browser, shots)
            if errors:
                failed += 1
                print("check-browser: %s: FAILED" % page.name)
                for e in errors[:20]:
                    print("  " + e)
            else:
                print("check-browser: %s: ok, %s" % (page.name, summary))
    except BrowserError as e:
        print("check-browser: FAILED: %s" % e)
        return 1
    finally:
        browser.close()
    print("check-browser: %d pages, %d failed (%.1f s)" % (
        len(todo), failed, time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
