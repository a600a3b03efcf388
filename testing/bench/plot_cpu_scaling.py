#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The CPU back end's scaling from a cavr-cpu-scaling CSV (issue 13 item 4): three panels, frame time against
threads (with the ideal 1/threads line), against image pixels and against volume voxels, log-log.
usage: plot_cpu_scaling.py OUT.png FILE.csv [TITLE]"""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        rows = list(csv.DictReader(f))
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    t = [r for r in rows if r["sweep"] == "threads"]
    if t:
        x = [int(r["threads"]) for r in t]
        y = [float(r["median_ms"]) for r in t]
        axes[0].loglog(x, y, "o-", base=2, label="measured (median)")
        axes[0].loglog(x, [y[0] * x[0] / v for v in x], "k--", base=2, label="ideal (1 / threads)")
        for xv, yv, r in zip(x, y, t):
            axes[0].annotate("x%.1f" % float(r["speedup"]), (xv, yv), textcoords="offset points", xytext=(4, 6), fontsize=8)
        axes[0].set_xlabel("threads")
        axes[0].set_title("threads (%s px)" % t[0]["image"])
    i = [r for r in rows if r["sweep"] == "image"]
    if i:
        x = [int(r["image"]) ** 2 for r in i]
        y = [float(r["median_ms"]) for r in i]
        axes[1].loglog(x, y, "s-", label="measured (median)")
        axes[1].loglog(x, [y[-1] * v / x[-1] for v in x], "k--", label="proportional to pixels")
        for xv, yv, r in zip(x, y, i):
            axes[1].annotate("%s^2" % r["image"], (xv, yv), textcoords="offset points", xytext=(4, -12), fontsize=8)
        axes[1].set_xlabel("pixels")
        axes[1].set_title("image size (%s threads)" % i[0]["threads"])
    v = [r for r in rows if r["sweep"] == "volume"]
    if v:
        x = [int(r["dims_x"]) * int(r["dims_y"]) * int(r["dims_z"]) for r in v]
        y = [float(r["median_ms"]) for r in v]
        axes[2].loglog(x, y, "^-", label="measured (median)")
        axes[2].loglog(x, [y[-1] * (a / x[-1]) ** (1.0 / 3.0) for a in x], "k--", label="proportional to voxels^(1/3)")
        for xv, yv, r in zip(x, y, v):
            axes[2].annotate("%sx%sx%s" % (r["dims_x"], r["dims_y"], r["dims_z"]), (xv, yv), textcoords="offset points",
                             xytext=(4, -12), fontsize=8)
        axes[2].set_xlabel("voxels")
        axes[2].set_title("volume size (%s threads, %s px)" % (v[0]["threads"], v[0]["image"]))
    for ax in axes:
        ax.set_ylabel("frame time, ms")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if len(sys.argv) > 3:
        fig.suptitle(sys.argv[3])
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=90)
    print("wrote", sys.argv[1])


if __name__ == "__main__":
    main()
