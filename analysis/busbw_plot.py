#!/usr/bin/python3
"""Plot bus bandwidth against message size, one line per algorithm, from collectives.csv files.

    analysis/busbw_plot.py RESULTS_DIR [RESULTS_DIR ...] --out busbw.png [--label DIR=NAME ...]

Each results folder is an ai-fabric-collbench or ai-fabric-run output holding collectives.csv.
Iterations of a size are averaged as in the nccl-tests table.  Lines are labelled by the
algorithm the runs recorded (auto's choice included, e.g. "auto:ring") and, when several
folders are given, by folder.  Prints the plotted table; writes the PNG whole (via a temporary
file) or not at all; exits 1 on a folder without collectives.csv.
"""
import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import human_bytes as human, save_whole  # noqa: E402


def load(folder: Path, label: str) -> pd.DataFrame:
    path = folder / "collectives.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found (is {folder} a collective results folder?)")
    runs = pd.read_csv(path)
    failed = runs[runs["status"].str.endswith("failed")]  # warm-ups (-w) are left out silently
    if len(failed):  # a failed run's time is until it failed: not a bandwidth
        print(f"busbw_plot: {path}: {len(failed)} failed run(s) left out", file=sys.stderr)
    runs = runs[runs["status"] == "complete"].copy()
    runs["series"] = runs["op"] + " " + runs["algorithm"]
    if label:  # name the folder unless its name is the algorithm's
        runs["series"] = [s if label in s else f"{s} ({label})" for s in runs["series"]]
    return runs.groupby(["series", "bytes"], as_index=False)[["time_us", "busbw_GBps"]].mean()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    parser.add_argument("--label", action="append", default=[], help="DIR=NAME legend label")
    parser.add_argument("--title", default="bus bandwidth vs message size")
    args = parser.parse_args()
    labels = dict(item.split("=", 1) for item in args.label)
    try:
        frames = [load(d, labels.get(str(d), d.name if len(args.results) > 1 else ""))
                  for d in args.results]
    except FileNotFoundError as e:
        print(f"busbw_plot: error: {e}", file=sys.stderr)
        return 1
    table = pd.concat(frames)

    fig, ax = plt.subplots(figsize=(8, 5))
    for series, rows in table.groupby("series", sort=True):
        rows = rows.sort_values("bytes")
        ax.plot(rows["bytes"], rows["busbw_GBps"], marker="o", label=series)
    ax.set_xscale("log", base=2)
    sizes = sorted(table["bytes"].unique())
    ax.set_xticks(sizes)
    ax.set_xticklabels([human(s) for s in sizes], rotation=45)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    ax.set_title(args.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_whole(fig, args.out)

    print(table.pivot(index="bytes", columns="series", values="busbw_GBps").to_string())
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
