#!/usr/bin/python3
"""Plot and tabulate a multi-plane study (scenarios/studies/multi_plane.py): per fabric and share
of failed links, the all-to-all's time and busbw and the permutation's completion times.

Usage: multi_plane_plot.py RESULTS... --out PNG --table MD

RESULTS are results folders named <workload>-<fabric>-<percent failed>: one collective run
(collectives.csv) or one set of flows (flows.csv: median, 99th percentile and slowest
completion time, nearest-rank percentiles).
"""
import argparse
import csv
import math
from pathlib import Path

from plotting import save_whole, write_whole


def percentile(values: list, q: float) -> float:
    """The nearest-rank Q-th percentile of VALUES."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def read(folder: Path) -> dict:
    workload, rest = folder.name.split("-", 1)
    fabric, percent = rest.rsplit("-", 1)
    run = {"workload": workload, "fabric": fabric, "failed": float(percent)}
    if (folder / "collectives.csv").is_file():
        with open(folder / "collectives.csv") as f:
            rows = [r for r in csv.DictReader(f)]
        if len(rows) != 1 or rows[0]["status"] != "complete":
            raise SystemExit(f"{folder}: expected one complete collective run")
        return {**run, "time_us": float(rows[0]["time_us"]),
                "busbw": float(rows[0]["busbw_GBps"])}
    with open(folder / "flows.csv") as f:
        flows = list(csv.DictReader(f))
    if not flows or any(r["complete"] != "1" for r in flows):
        raise SystemExit(f"{folder}: expected every flow complete")
    fct = [float(r["fct_us"]) for r in flows]
    return {**run, "p50": percentile(fct, 50), "p99": percentile(fct, 99), "max": max(fct)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--table", type=Path, required=True)
    args = parser.parse_args()
    runs = [read(r) for r in args.results]
    fabrics = list(dict.fromkeys(r["fabric"] for r in runs))

    lines = ["| fabric | links failed | all-to-all (us) | busbw (GB/s) | permutation FCT p50 / "
             "p99 / max (us) |", "|---|---|---|---|---|"]
    for fabric in fabrics:
        for failed in sorted({r["failed"] for r in runs if r["fabric"] == fabric}):
            mine = {r["workload"]: r for r in runs
                    if r["fabric"] == fabric and r["failed"] == failed}
            a2a, perm = mine.get("alltoall"), mine.get("permutation")
            cells = [f"{a2a['time_us']:,.1f}", f"{a2a['busbw']:.2f}"] if a2a else ["", ""]
            cells.append(f"{perm['p50']:,.1f} / {perm['p99']:,.1f} / {perm['max']:,.1f}"
                         if perm else "")
            lines.append(f"| {fabric} | {failed:g}% | " + " | ".join(cells) + " |")
    write_whole("\n".join(lines) + "\n", args.table)
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for fabric in fabrics:
        a2a = sorted((r["failed"], r["time_us"]) for r in runs
                     if r["fabric"] == fabric and r["workload"] == "alltoall")
        perm = sorted((r["failed"], r["p99"]) for r in runs
                      if r["fabric"] == fabric and r["workload"] == "permutation")
        if a2a:
            axes[0].plot(*zip(*a2a), marker="o", label=fabric)
        if perm:
            axes[1].plot(*zip(*perm), marker="o", label=fabric)
    axes[0].set_title("all-to-all time")
    axes[0].set_ylabel("us")
    axes[1].set_title("permutation: 99th-percentile FCT")
    axes[1].set_ylabel("us")
    for ax in axes:
        ax.set_xlabel("leaf-to-spine links failed (%)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    fig.tight_layout()
    save_whole(fig, args.out)


if __name__ == "__main__":
    main()
