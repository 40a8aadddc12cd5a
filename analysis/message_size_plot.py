#!/usr/bin/python3
"""Plot a job's iteration time and its all-reduce bus bandwidth against gradient bytes, with
the alpha-beta fit and n_1/2 marked, from ai-fabric-run training results folders.

    analysis/message_size_plot.py RESULTS_DIR [RESULTS_DIR ...] --out size.png [--csv t.csv]

Meant for jobs without compute (scenarios/studies/message_size.py): the iteration is then the
gradient all-reduce.  alpha is the smallest size's time and beta the slope to the largest
size; n_1/2 = alpha / beta.  busbw = 2 (n - 1) / n x bytes / time (the ring all-reduce's bus
factor, as nccl-tests reports it).  Prints the table and the fit; writes the PNG (and CSV)
whole or not at all; exits 1 on a folder that is not a finished training run, or on fewer
than two sizes.
"""
import argparse
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import job_rows, save_whole, write_whole  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    parser.add_argument("--csv", type=Path, help="table to write")
    args = parser.parse_args()
    try:
        rows = []
        for folder in args.results:
            row = job_rows(folder)[0]
            job = json.loads((folder / "summary.json").read_text())["training"]["jobs"][0]
            row["bytes"] = job["gradient_bytes_per_rank"]
            rows.append(row)
    except (FileNotFoundError, ValueError) as e:
        print(f"message_size_plot: error: {e}", file=sys.stderr)
        return 1
    t = pd.DataFrame(rows).sort_values("bytes")
    if len(t) < 2:
        print("message_size_plot: error: need at least two sizes", file=sys.stderr)
        return 1
    n = t["gpus"].iloc[0]
    t["time_us"] = t["iteration_ms"] * 1e3
    t["busbw_GBps"] = 2 * (n - 1) / n * t["bytes"] / (t["time_us"] * 1e-6) / 1e9
    first, last = t.iloc[0], t.iloc[-1]
    alpha = first["time_us"]
    beta = (last["time_us"] - alpha) / (last["bytes"] - first["bytes"])  # us per byte
    half = alpha / beta
    t["model_us"] = alpha + beta * (t["bytes"] - first["bytes"])
    t["regime"] = ["latency-bound" if b < half else "bandwidth-bound" for b in t["bytes"]]

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    ax1.loglog(t["bytes"], t["time_us"], "o-", label="simulated")
    ax1.loglog(t["bytes"], t["model_us"], "--", label=f"alpha {alpha:.1f} us + bytes x beta")
    ax2.semilogx(t["bytes"], t["busbw_GBps"], "o-")
    for ax in (ax1, ax2):
        ax.axvline(half, color="grey", linestyle=":", label=f"n_1/2 = {half / 1024:.0f} KiB")
        ax.set_xlabel("gradient bytes per GPU")
        ax.grid(True, which="both", alpha=0.3)
    ax1.set_ylabel("iteration = all-reduce time (us)")
    ax2.set_ylabel("busbw (GB/s)")
    ax1.legend()
    ax2.legend()
    fig.suptitle(f"{n}-GPU ring all-reduce of a job's gradients: latency- vs bandwidth-bound")
    fig.tight_layout()
    save_whole(fig, args.out)
    columns = ["bytes", "time_us", "model_us", "busbw_GBps", "regime"]
    if args.csv:
        write_whole(t[columns].to_csv(index=False), args.csv)
    print(t[columns].to_string(index=False))
    print(f"alpha = {alpha:.2f} us, beta = {beta * 1e6:.4f} us/MB, n_1/2 = {half:.0f} B")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
