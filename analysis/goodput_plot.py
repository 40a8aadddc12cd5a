#!/usr/bin/python3
"""Plot goodput against the checkpoint interval from an ai-fabric-run availability results
folder, with Daly's closed form and the Young and Daly optima marked.

    analysis/goodput_plot.py RESULTS_DIR --out goodput.png [--csv goodput.csv]

Points: the simulated goodput (useful training time / wall time) of each interval in
availability.csv, averaged over the run's independent runs.  Line: Daly's expectation
tau / (M e^(R/M) (e^((tau + delta)/M) - 1)) from the job's expected MTBI M, checkpoint time
delta and restart time R in summary.json: the goodput if only interruptions cost time (the
simulation also charges degraded fabric states).  Prints the table; writes the PNG (and CSV)
whole or not at all; exits 1 on a folder without availability results.
"""
import argparse
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import save_whole, write_whole  # noqa: E402


def closed_form(tau: float, delta: float, restart: float, mtbi) -> float:
    """Daly's expectation; without interruptions (mtbi None) only checkpoints cost."""
    if mtbi is None:
        return tau / (tau + delta)
    return tau / (mtbi * math.exp(restart / mtbi) * math.expm1((tau + delta) / mtbi))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    parser.add_argument("--csv", type=Path, help="table to write")
    args = parser.parse_args()
    summary_path = args.results / "summary.json"
    table_path = args.results / "availability.csv"
    if not summary_path.is_file() or not table_path.is_file():
        print(f"goodput_plot: {args.results}: no summary.json and availability.csv "
              "(not an availability run)", file=sys.stderr)
        return 1
    a = json.loads(summary_path.read_text()).get("availability")
    if a is None:
        print(f"goodput_plot: {summary_path}: no availability section", file=sys.stderr)
        return 1
    t = pd.read_csv(table_path).sort_values("checkpoint_interval_s")
    t["interval_min"] = t["checkpoint_interval_s"] / 60
    mtbi, delta, restart = a["expected_mtbi_s"], a["checkpoint_time_s"], a["restart_time_s"]

    fig, ax = plt.subplots(figsize=(7, 4.2))
    lo, hi = t["checkpoint_interval_s"].min() / 2, t["checkpoint_interval_s"].max() * 1.5
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ax.plot([g / 60 for g in grid], [closed_form(g, delta, restart, mtbi) for g in grid],
            color="0.5", label="Daly's closed form (interruptions only)")
    ax.plot(t["interval_min"], t["goodput"], "o", color="C0",
            label=f"simulated ({a['runs']} x {a['horizon_days']:.0f} days)")
    for name, key, style in (("Young", "young_interval_s", ":"), ("Daly", "daly_interval_s", "--")):
        if a[key] is None:
            continue
        ax.axvline(a[key] / 60, color="C3", linestyle=style,
                   label=f"{name} optimum {a[key] / 60:.1f} min")
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval (min)")
    ax.set_ylabel("goodput (useful / wall time)")
    mtbi_text = f"MTBI {mtbi / 3600:.2f} h" if mtbi is not None else "no interruptions"
    ax.set_title(f"{a['job_gpus']} GPUs, {mtbi_text}, checkpoint {delta:.0f} s, "
                 f"restart {restart / 60:.0f} min", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_whole(fig, args.out)
    columns = ["interval_min", "policy", "goodput", "closed_form_goodput", "restarts",
               "lost_work_s", "checkpoint_s", "restart_s", "degraded_loss_s"]
    print(t[columns].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if args.csv:
        write_whole(t[columns].to_csv(index=False), args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
