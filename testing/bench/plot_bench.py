# SPDX-License-Identifier: BSD-3-Clause
"""Plots of cavr-bench's CSV like Misaki 2017's Fig. 9 (frame rate against angle) and Fig. 10 (box plot of
frame times per strategy). Usage: python3 plot_bench.py bench.csv OUTDIR"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2]
data = defaultdict(lambda: defaultdict(list))
for r in rows:
    data[(r["volume"], r["sweep"])][r["strategy"]].append((float(r["angle"]), float(r["ms"])))
for (volume, sweep), by in data.items():
    fig, ax = plt.subplots(figsize=(8, 4))
    for strategy, pts in by.items():
        pts.sort()
        ax.plot([a for a, _ in pts], [1000.0 / m for _, m in pts], label=strategy, lw=1)
    ax.set_xlabel("theta_%s (degrees)" % sweep)
    ax.set_ylabel("frames per second")
    ax.set_title("%s volume, %s-sweep" % (volume, sweep))
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig9_%s_%s.png" % (volume, sweep)), dpi=110)
    plt.close(fig)
for volume in sorted({v for v, _ in data}):
    by = data[(volume, "y")]
    fig, ax = plt.subplots(figsize=(5, 4))
    names = list(by)
    ax.boxplot([[m for _, m in by[n]] for n in names])
    ax.set_xticks(range(1, len(names) + 1))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("ms per frame (theta_y = 0..359)")
    ax.set_title("%s volume" % volume)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig10_%s.png" % volume), dpi=110)
    plt.close(fig)
print("plots written to", out)
