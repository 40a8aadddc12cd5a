#!/usr/bin/python3
"""Plot an ai-fabric-run results folder's time series (a scenario with a "monitor" section):
queue depth of the busiest port classes, their paused state, and each queue pair's rate.

    analysis/monitor_plot.py RESULTS_DIR --out monitor.png [--top 6]

Top panel: queue_bytes over time of the --top port classes with the largest peak queue
(monitor-ports.csv), paused samples marked; middle: the rate at which bytes left those
queues per interval (dequeued_bytes x 8 / interval: sent, or dropped when a link went down); bottom: every queue pair's congestion-control rate
(monitor-qps.csv; empty without RDMA).  Prints the plotted ports with their peak queue, paused
fraction and mean throughput; writes the PNG whole or not at all; exits 1 on a folder
without monitor files.
"""
import argparse
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plotting import save_whole  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    parser.add_argument("--top", type=int, default=6, help="port classes to plot")
    args = parser.parse_args()
    ports_path = args.results / "monitor-ports.csv"
    qps_path = args.results / "monitor-qps.csv"
    summary_path = args.results / "summary.json"
    if not ports_path.is_file() or not qps_path.is_file() or not summary_path.is_file():
        print(f"monitor_plot: {args.results}: no monitor-ports.csv, monitor-qps.csv and "
              "summary.json (the scenario had no \"monitor\" section)", file=sys.stderr)
        return 1
    interval_s = json.loads(summary_path.read_text())["monitor"]["interval_us"] * 1e-6
    ports = pd.read_csv(ports_path)
    qps = pd.read_csv(qps_path)
    if ports.empty:
        print(f"monitor_plot: {ports_path}: no port ever queued a frame", file=sys.stderr)
        return 1
    ports["port"] = ports["node"] + "->" + ports["peer"] + " class " + ports["class"].astype(str)
    ports["gbps"] = ports["dequeued_bytes"] * 8 / interval_s / 1e9
    stats = ports.groupby("port").agg(peak_queue_bytes=("queue_bytes", "max"),
                                      paused_fraction=("paused", "mean"),
                                      mean_gbps=("gbps", "mean"))
    top = stats.sort_values("peak_queue_bytes", ascending=False).head(args.top)

    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for name in top.index:
        p = ports[ports["port"] == name]
        line, = axes[0].plot(p["time_us"], p["queue_bytes"] / 1e3, label=name)
        paused = p[p["paused"] == 1]
        axes[0].plot(paused["time_us"], paused["queue_bytes"] / 1e3, "x",
                     color=line.get_color(), markersize=4)
        axes[1].plot(p["time_us"], p["gbps"], color=line.get_color())
    axes[0].set_ylabel("queue (KB); x: paused")
    axes[0].legend(fontsize=7)
    axes[1].set_ylabel("dequeued (Gb/s)")
    for (node, qpn), q in qps.groupby(["node", "qpn"]):
        axes[2].plot(q["time_us"], q["rate_gbps"], linewidth=0.8, label=f"{node} QP {qpn}")
    axes[2].set_ylabel("QP rate (Gb/s)")
    axes[2].set_xlabel("time (us)")
    if 0 < qps.groupby(["node", "qpn"]).ngroups <= 16:
        axes[2].legend(fontsize=6, ncol=2)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_whole(fig, args.out)
    print(top.to_string(float_format=lambda x: f"{x:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
