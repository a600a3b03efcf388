# SPDX-License-Identifier: BSD-3-Clause
"""The median of several cavr-auto-sweep runs, view by view: on a shared GPU one run's frame times move by about 5%
between runs of the same plan (measured 2026-11-29, H200: standard 16x16 on 512x512x4096 at 15 degrees, 0.88-0.97 ms
in three runs), the size of the 5% that AUTO is held to. Writes the per-view median of frame_ms and kernel_ms over the
runs as one CSV in cavr-auto-sweep's columns (AUTO's plan: the one most runs chose) and prints, per volume, the views
within 5% of the best and the worst AUTO / best, for the median and for each run.

Usage: python3 auto_sweep_median.py OUT.csv RUN1.csv RUN2.csv [...]"""
import csv
import statistics
import sys
from collections import Counter, defaultdict

out, runs = sys.argv[1], sys.argv[2:]
if len(runs) < 2:
    sys.exit(__doc__)
KEY = ("volume", "type", "axis", "angle", "strategy")
cells, order, columns = defaultdict(list), [], None
for i, path in enumerate(runs):
    with open(path) as f:
        reader = csv.DictReader(l for l in f if not l.startswith("#"))
        columns = reader.fieldnames
        for r in reader:
            k = tuple(r[c] for c in KEY)
            if k not in cells:
                order.append(k)
            cells[k].append((i, r))


def worst(rows_by_view):
    """(views within 5%, views, worst AUTO / best, at which view) over {(axis, angle): {strategy: ms}}."""
    within, n, w, at = 0, 0, 0.0, ""
    for (axis, angle), ms in rows_by_view.items():
        if "auto" not in ms or len(ms) < 2:
            continue
        ratio = ms["auto"] / min(v for s, v in ms.items() if s != "auto")
        n += 1
        within += ratio <= 1.05
        if ratio > w:
            w, at = ratio, "%s deg about %s" % (angle, axis)
    return within, n, w, at


med = []
for k in order:
    rs = [r for _, r in cells[k]]
    row = dict(rs[0])
    for c in ("frame_ms", "kernel_ms", "turn_ms"):
        if c in row:
            row[c] = "%.4f" % statistics.median(float(r[c]) for r in rs)
    plan = Counter((r.get("rotation", ""), r.get("block", "")) for r in rs).most_common(1)[0][0]
    row["rotation"], row["block"] = plan
    med.append(row)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=columns)
    w.writeheader()
    w.writerows(med)

views = defaultdict(lambda: defaultdict(dict))  # (volume, type) -> run or "median" -> (axis, angle) -> strategy -> ms
for k in order:
    for i, r in cells[k]:
        views[k[:2]][i].setdefault((k[2], k[3]), {})[k[4]] = float(r["frame_ms"])
for r in med:
    views[(r["volume"], r["type"])]["median"].setdefault((r["axis"], r["angle"]), {})[r["strategy"]] = float(r["frame_ms"])
print("%-22s %-28s %-34s %s" % ("volume", "median: within 5% / worst", "at", "each run's worst"))
for vol in sorted(views):
    wi, n, wr, at = worst(views[vol]["median"])
    each = " ".join("%.3f" % worst(views[vol][i])[2] for i in range(len(runs)) if i in views[vol])
    print("%-22s %2d/%-2d %-22.3f %-34s %s" % (" ".join(vol), wi, n, wr, at, each))
