# SPDX-License-Identifier: BSD-3-Clause
"""One plot per volume from cavr-auto-sweep's CSV: whole-frame ms against the view angle for each strategy and AUTO,
the orbit about y on the left and about x on the right. Usage: python3 plot_auto_sweep.py auto_sweep.csv OUTDIR [TAG]"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
out, tag = sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
data = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
for r in rows:
    data[(r["volume"], r["type"])][r["axis"]][r["strategy"]].append((float(r["angle"]), float(r["frame_ms"])))
style = {"auto": dict(color="k", lw=2.2), "standard": dict(ls="--"), "shaped": dict(ls="-."), "rotation": dict(ls=":"),
         "rot16": dict(ls=":")}
for (volume, vtype), axes in sorted(data.items()):
    fig, plots = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, axis in zip(plots, ("y", "x")):
        for strategy, pts in axes[axis].items():
            pts.sort()
            ax.plot([a for a, _ in pts], [m for _, m in pts], label=strategy, marker="o", ms=3, **style.get(strategy, {}))
        ax.set_xlabel("orbit about %s (degrees)" % axis)
        ax.grid(alpha=0.3)
    plots[0].set_ylabel("whole frame, ms (1024x1024)")
    plots[1].legend(fontsize=8)
    fig.suptitle("%s %s %s" % (volume, vtype, tag))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "auto_sweep_%s%s_%s.png" % (tag + "_" if tag else "", volume, vtype)), dpi=90)
    plt.close(fig)
