#!/usr/bin/python3
"""Split each training run's iteration into compute and what its ranks wait for, one bar per
results folder, and tabulate iteration time, MFU and tokens per second.

    analysis/workload_plot.py RESULTS_DIR [RESULTS_DIR ...] --out workloads.png
                              [--table TABLE.md] [--gpu-price USD]

Each folder's first job gives a bar: the ranks' mean compute, exposed tensor-parallel,
expert-parallel, pipeline (bubble and transfers) and data-parallel communication, and barrier
wait (the time a rank has finished its iteration and waits for the slowest), from
iterations.csv (their sum is the iteration); the MFU and tokens per second are summary.json's,
and tokens per second per million USD counts the GPUs (--gpu-price each, plotting.py's
default) and the fabric's bill of materials.
Prints the Markdown table; writes it and the PNG whole, or neither; exits 1 on a folder that
is not a finished training run of a model.
"""
import argparse
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import DEFAULT_GPU_PRICE, save_table_and_figure  # noqa: E402

# iterations.csv column, label
PARTS = [("compute_s", "compute"), ("exposed_tensor_s", "tensor-parallel"),
         ("exposed_expert_s", "expert all-to-all"), ("exposed_pipeline_s", "pipeline"),
         ("exposed_data_s", "data-parallel"), ("barrier_wait_s", "barrier wait")]


def row(folder: Path, gpu_price: float) -> dict:
    summary_path = folder / "summary.json"
    if not summary_path.is_file():
        raise ValueError(f"{summary_path}: not found (is {folder} an ai-fabric-run results folder?)")
    summary = json.loads(summary_path.read_text())
    jobs = summary.get("training", {}).get("jobs", [])
    if not jobs or not jobs[0]["finished"] or "model" not in jobs[0]:
        raise ValueError(f"{summary_path}: no finished training job of a model")
    job = jobs[0]
    its = pd.read_csv(folder / "iterations.csv", dtype={"job": str})
    its = its[its["job"] == job["name"]]
    if its.empty:
        raise ValueError(f"{folder / 'iterations.csv'}: no iteration of job {job['name']}")
    r = {"run": summary["name"], "gpus": job["ranks"], "iteration_s": job["mean_iteration_s"],
         "mfu": job["model"]["mfu"], "tokens_per_s": job["tokens_per_s"],
         "fabric_musd": summary["bom_total_usd"] / 1e6}
    r["tokens_per_s_per_musd"] = r["tokens_per_s"] / (r["gpus"] * gpu_price / 1e6 + r["fabric_musd"])
    for column, _ in PARTS:
        r[column] = its[column].mean()
    return r


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--table", type=Path)
    parser.add_argument("--gpu-price", type=float, default=DEFAULT_GPU_PRICE)
    args = parser.parse_args()
    try:
        t = pd.DataFrame([row(f, args.gpu_price) for f in args.folders])
    except (OSError, ValueError, KeyError) as e:
        print(f"workload_plot: {e}", file=sys.stderr)
        return 1

    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.6 * len(t)))
    left = pd.Series(0.0, index=t.index)
    for column, label in PARTS:
        ax.barh(t["run"], t[column], left=left, label=label)
        left += t[column]
    ax.invert_yaxis()
    ax.set_xlabel("seconds per iteration (mean over ranks)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize="small")
    fig.tight_layout()

    lines = ["| run | GPUs | iteration (s) | MFU | tokens/s | fabric (M USD) | tokens/s per M USD | "
             + " | ".join(f"{label} (s)" for _, label in PARTS) + " |",
             "|---|---|---|---|---|---|---|" + "---|" * len(PARTS)]
    for _, r in t.iterrows():
        lines.append(f"| {r['run']} | {r['gpus']} | {r['iteration_s']:.4g} | {r['mfu']:.3f} "
                     f"| {r['tokens_per_s']:.0f} | {r['fabric_musd']:.2f} "
                     f"| {r['tokens_per_s_per_musd']:.0f} | "
                     + " | ".join(f"{r[c]:.4g}" for c, _ in PARTS) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    save_table_and_figure(text, args.table, fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
