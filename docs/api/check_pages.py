#!/usr/bin/env python3
"""Check docs/api/ against the public headers: every function declared in core/include/cavr/*.h has a page whose
NAME line lists it, and no page names a cavr function that is not declared (cavrNew* and the like name families). Run from anywhere; exit status 1 on a
mismatch."""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
declared = set()
for h in glob.glob(os.path.join(root, "core/include/cavr/*.h")):
    declared |= set(re.findall(r"^CAVR_API [^;(]*?\b(cavr[A-Z]\w*)\(", open(h).read(), re.M))
documented, named = set(), {}
for page in glob.glob(os.path.join(root, "docs/api/*.md")):
    text = open(page).read()
    m = re.search(r"^## NAME\n\n\s*(.*?) - ", text, re.M)
    if m:
        documented |= set(f.strip() for f in m.group(1).split(","))
    for f in re.findall(r"\b(cavr[A-Z]\w*)\b(?!\*)", text):  # cavrNew* names a family, not a function
        named.setdefault(f, os.path.basename(page))
bad = 0
for f in sorted(declared - documented):
    print("no page for", f)
    bad = 1
for f in sorted(documented - declared):
    print("page for an undeclared function", f)
    bad = 1
for f, page in sorted(named.items()):
    if f not in declared:
        print(page, "names", f, "which is not declared")
        bad = 1
print("%d functions declared, %d documented" % (len(declared), len(documented & declared)))
sys.exit(bad)
