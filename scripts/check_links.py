#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Report markdown links to local files that do not resolve.

Usage: scripts/check_links.py [FILE.md ...]
Without arguments: every tracked *.md file of the repository (git ls-files). A link [text](target) or an image
![alt](target) whose target is not a URL (scheme://, mailto:) nor a pure anchor (#...) is resolved against the
directory of the file that holds it; "#fragment" and "?query" parts are ignored, and so are targets outside the
repository (../shared/...), which this checkout does not hold. Prints FILE:LINE: target for each missing one and
exits 1 if any is missing, 0 otherwise.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def md_files(args):
    if args:
        return [os.path.abspath(a) for a in args]
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "*.md"], capture_output=True, text=True, check=True).stdout
    return [os.path.join(ROOT, p) for p in out.split()]


def missing_links(path):
    """Yield (line number, target) for each local link of the file at path that does not resolve."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
                    continue
                local = target.split("#", 1)[0].split("?", 1)[0]
                if not local:
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), local))
                if not resolved.startswith(ROOT + os.sep):
                    continue  # outside this checkout (e.g. ../shared/)
                if not os.path.exists(resolved):
                    yield n, target


def main(argv):
    bad = 0
    for path in md_files(argv[1:]):
        for n, target in missing_links(path):
            print("%s:%d: %s" % (os.path.relpath(path, ROOT), n, target))
            bad += 1
    print("%d missing link(s)" % bad, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
