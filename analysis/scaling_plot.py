#!/usr/bin/python3
"""Plot iteration time, utilization and delivered compute per dollar against GPUs, one line
per fabric, from ai-fabric-run training results folders.

    analysis/scaling_plot.py RESULTS_DIR [RESULTS_DIR ...] --out scaling.png [--csv scaling.csv]
                             [--gpu-price USD]

Each folder's scenario name labels its fabric; its first job gives the point (GPUs, mean
iteration time, utilization = ideal compute / iteration).  Delivered compute per dollar is
utilization x GPUs (the GPUs' worth of compute the job uses) per million USD of GPUs
(--gpu-price each) plus the fabric's bill of materials.  Prints the table; writes the PNG
(and CSV) whole or not at all; exits 1 on a folder that is not a finished training run.
"""
import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import DEFAULT_GPU_PRICE, PANELS, add_cost_per_use, finish, job_rows  # noqa: E402


def table(folders, gpu_price: float) -> pd.DataFrame:
    t = pd.DataFrame([job_rows(f)[0] for f in folders])
    t["fabric_usd_per_gpu"] = t["fabric_usd"] / t["gpus"]
    add_cost_per_use(t, gpu_price)
    return t.sort_values(["scenario", "gpus"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    parser.add_argument("--csv", type=Path, help="table to write")
    parser.add_argument("--gpu-price", type=float, default=DEFAULT_GPU_PRICE,
                        help="USD per GPU with its share of the server (default %(default).0f)")
    parser.add_argument("--title", default="weak scaling of a data-parallel job")
    args = parser.parse_args()
    try:
        t = table(args.results, args.gpu_price)
    except (FileNotFoundError, ValueError) as e:
        print(f"scaling_plot: error: {e}", file=sys.stderr)
        return 1

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    for ax, (column, label) in zip(axes, PANELS):
        for fabric, rows in t.groupby("scenario", sort=True):
            ax.plot(rows["gpus"], rows[column], marker="o", label=fabric)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(t["gpus"].unique()))
        ax.set_xticklabels([str(g) for g in sorted(t["gpus"].unique())])
        ax.set_xlabel("GPUs")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    finish(fig, axes, args.title, t,
           ["scenario", "gpus", "iteration_ms", "utilization", "fabric_usd",
            "fabric_usd_per_gpu", "used_gpus_per_musd"], args.out, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
