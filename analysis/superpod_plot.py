#!/usr/bin/python3
"""Plot collective bus bandwidth per operation and server count, beside published figures.

    analysis/superpod_plot.py RESULTS_DIR [...] --published TABLE.csv --out FIG.png
                              [--table TABLE.md]

Each results folder is an ai-fabric-run collective sweep (collectives.csv; summary.json's
scenario names the topology's servers).  One panel per operation, a line per server count,
and the published rows of TABLE.csv (validation/nccl-tests-h100.csv: source, servers, op,
bytes, busbw_GBps, ...) as marks in the colour of their server count.  The Markdown table
lists every simulated size with the algorithm the runs recorded and, where one exists, the
published figure at that size.  Writes each file whole (via a temporary file) and removes
the table if the figure cannot be written; exits 1 on a folder that is not a collective
results folder, or one whose topology does not name its servers.
"""
import argparse
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import human_bytes as human, save_table_and_figure  # noqa: E402


def load(folder: Path) -> pd.DataFrame:
    path, summary = folder / "collectives.csv", folder / "summary.json"
    if not path.is_file() or not summary.is_file():
        raise FileNotFoundError(f"{folder}: no collectives.csv and summary.json")
    topology = json.loads(summary.read_text())["scenario"]["topology"]
    if "servers" not in topology:
        raise ValueError(f"{summary}: the scenario's topology does not name its servers")
    servers = int(topology["servers"])
    runs = pd.read_csv(path)
    runs = runs[runs["status"] == "complete"].copy()
    runs["servers"] = servers
    keys = ["op", "servers", "bytes", "algorithm"]
    return runs.groupby(keys, as_index=False)["busbw_GBps"].mean()


def published(path: Path) -> pd.DataFrame:
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    table = pd.DataFrame(rows)
    table["servers"] = table["servers"].astype(int)
    table["bytes"] = table["bytes"].astype(int)
    table["busbw_GBps"] = table["busbw_GBps"].astype(float)
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--published", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--table", type=Path)
    args = parser.parse_args()
    try:
        sim = pd.concat([load(d) for d in args.results], ignore_index=True)
        pub = published(args.published)
        if sim.empty:
            raise ValueError("no completed run in the folders given")
    except (OSError, KeyError, ValueError) as e:
        print(f"superpod_plot: error: {e}", file=sys.stderr)
        return 1
    ops = list(dict.fromkeys(sim["op"]))
    servers = sorted(set(sim["servers"]))
    colours = {s: f"C{i}" for i, s in enumerate(servers)}
    cols = min(3, len(ops))
    rows = (len(ops) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    for ax, op in zip(axes.flat, ops):
        for s in servers:
            line = sim[(sim["op"] == op) & (sim["servers"] == s)].sort_values("bytes")
            ax.plot(line["bytes"], line["busbw_GBps"], "o-", color=colours[s],
                    label=f"{s} x 8 GPUs")
            marks = pub[(pub["op"] == op) & (pub["servers"] == s)]
            if len(marks):
                ax.plot(marks["bytes"], marks["busbw_GBps"], "x", color=colours[s], markersize=9,
                        label=f"published, {s} servers")
        ax.set_xscale("log", base=2)
        ax.set_title(op)
        ax.set_xlabel("bytes")
        ax.set_ylabel("busbw (GB/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(ops):]:
        ax.set_visible(False)
    fig.suptitle("DGX H100 servers, rail-optimized 400G, NCCL's tuner (auto)")
    fig.tight_layout()
    lines = ["| op | servers | bytes | busbw GB/s | tuner's pick | published GB/s |",
             "|---|---|---|---|---|---|"]
    for _, r in sim.sort_values(["op", "servers", "bytes"]).iterrows():
        match = pub[(pub["op"] == r["op"]) & (pub["servers"] == r["servers"])
                    & (pub["bytes"] == r["bytes"])]
        shown = ", ".join(f"{v:g} ({s})" for v, s in zip(match["busbw_GBps"], match["source"]))
        lines.append(f"| {r['op']} | {r['servers']} | {human(r['bytes'])} | {r['busbw_GBps']:.1f} "
                     f"| {r['algorithm']} | {shown} |")
    text = "\n".join(lines) + "\n"
    print(text)
    save_table_and_figure(text, args.table, fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
