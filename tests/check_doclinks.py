#!/usr/bin/env python3
"""Every relative link in README.md and doc/*.md names a file of the tree
and, with #anchor, a heading of that file (GitHub's anchor rules), so
that the README's pointers and the pages split by reader stay joined.
Run from the repository root; exits 1 and names each broken link."""
import glob
import os
import re
import sys


def anchors(path):
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#+ (.*)", line)
            if m:
                t = m.group(1).strip().lower()
                out.add(re.sub(r"[^\w\- ]", "", t).replace(" ", "-"))
    return out


def main():
    bad = 0
    pages = ["README.md"] + sorted(glob.glob("doc/*.md"))
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            link = m.group(1)
            if re.match(r"[a-z]+:", link):
                continue
            path, _, anchor = link.partition("#")
            target = (os.path.normpath(os.path.join(os.path.dirname(page),
                                                    path))
                      if path else page)
            if not os.path.exists(target):
                print("doclinks: %s: %s: no such file" % (page, link))
                bad += 1
            elif (anchor and target.endswith(".md") and
                  anchor not in anchors(target)):
                print("doclinks: %s: %s: no such heading" % (page, link))
                bad += 1
    print("doclinks: %d pages, %d broken links" % (len(pages), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
