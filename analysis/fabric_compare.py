#!/usr/bin/python3
"""Compare training results folders side by side: iteration time, utilization and delivered
compute per dollar, one bar per folder.

    analysis/fabric_compare.py RESULTS_DIR [RESULTS_DIR ...] --out compare.png [--csv t.csv]
                               [--label DIR=NAME ...] [--gpu-price USD]

Bars are named by --label, else by the scenario name and the job's placement.  Delivered
compute per dollar is as in scaling_plot.py.  Prints the table; writes the PNG (and CSV) whole
or not at all; exits 1 on a folder that is not a finished training run.
"""
import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import DEFAULT_GPU_PRICE, PANELS, add_cost_per_use, finish, job_rows  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    parser.add_argument("--csv", type=Path, help="table to write")
    parser.add_argument("--label", action="append", default=[], help="DIR=NAME bar label")
    parser.add_argument("--gpu-price", type=float, default=DEFAULT_GPU_PRICE,
                        help="USD per GPU with its share of the server (default %(default).0f)")
    parser.add_argument("--title", default="fabric comparison")
    args = parser.parse_args()
    labels = dict(item.split("=", 1) for item in args.label)
    try:
        rows = [job_rows(f)[0] for f in args.results]
    except (FileNotFoundError, ValueError) as e:
        print(f"fabric_compare: error: {e}", file=sys.stderr)
        return 1
    t = pd.DataFrame(rows)
    t["label"] = [labels.get(r["folder"], f"{r['scenario']} ({r['placement']})") for r in rows]
    add_cost_per_use(t, args.gpu_price)

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    for ax, (column, label) in zip(axes, PANELS):
        ax.bar(range(len(t)), t[column], color=[f"C{i}" for i in range(len(t))])
        ax.set_xticks(range(len(t)))
        ax.set_xticklabels(t["label"], rotation=30, ha="right")
        ax.set_ylabel(label)
        ax.grid(True, axis="y", alpha=0.3)
    finish(fig, axes, args.title, t,
           ["label", "gpus", "iteration_ms", "utilization", "fabric_usd", "used_gpus_per_musd"],
           args.out, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
