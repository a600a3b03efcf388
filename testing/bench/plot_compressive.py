#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""PSNR against sample fraction from cavr-compressive-bench CSV files (issue 4 item 6): one panel per volume
and shading, a line per reconstruction (global, local, adaptive) and the 2x2 / 3x3 rays + bilinear points
(what VTK's ImageSampleDistance does with the same rays).
usage: plot_compressive.py OUT.png FILE.csv [FILE.csv ...]"""
import csv
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = []
    for path in sys.argv[2:]:
        with open(path) as f:
            rows += list(csv.DictReader(f))
    panels = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["method"] == "full":
            continue
        key = (r["volume"], int(r["shade"]))
        panels[key][r["method"]].append((float(r["fraction"]), float(r["psnr"])))
    keys = sorted(panels)
    cols = 2
    rows_n = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(6 * cols, 4 * rows_n), squeeze=False)
    styles = {"global": "o-", "local": "s-", "adaptive": "^-", "bilinear2": "kD", "bilinear3": "kv"}
    for ax, key in zip(axes.flat, keys):
        for method, pts in sorted(panels[key].items()):
            pts.sort()
            ax.plot([100 * p[0] for p in pts], [min(p[1], 80.0) for p in pts], styles.get(method, "x-"),
                    label=method, markersize=5)
        ax.set_title("%s, %s" % (key[0], "shaded" if key[1] else "unshaded"))
        ax.set_xlabel("rays cast (% of pixels)")
        ax.set_ylabel("PSNR vs full render (dB, clipped at 80)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=90)
    print("wrote", sys.argv[1])


if __name__ == "__main__":
    main()
