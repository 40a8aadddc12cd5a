#!/usr/bin/python3
"""Summarize a results folder's links.csv and check its frame accounting.

    analysis/link_report.py RESULTS_DIR [--plot utilization.png]

Prints the busiest ports, the drops by reason and PFC activity per tier, and checks that the
data frames hosts sent equal the frames delivered plus the frames dropped (summary.json); exits
1 if they do not.  With --plot, writes a PNG of port utilization by tier.
"""
import argparse
import json
import sys
from pathlib import Path

import pandas as pd


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--plot", type=Path, help="write a utilization-by-tier PNG here")
    args = parser.parse_args()

    links = pd.read_csv(args.results / "links.csv")
    summary = json.loads((args.results / "summary.json").read_text())
    drop_columns = [c for c in links.columns if c.startswith("drop_")]

    print("busiest ports:")
    top = links.sort_values("utilization", ascending=False).head(8)
    print(top[["link", "node", "peer", "utilization", "paused_us", "ecn_marked"]]
          .to_string(index=False))
    print("\nper tier (ports of nodes with the role):")
    print(links.groupby("role")[drop_columns + ["pfc_pause_sent", "ecn_marked"]].sum()
          .to_string())

    sent = int(links.loc[links.role == "host", "tx_frames"].sum())
    delivered = summary["frames_delivered"]
    dropped = int(links[drop_columns].sum().sum())
    ok = sent == delivered + dropped and dropped == summary["frames_dropped"]
    print(f"\nframes: hosts sent {sent} = delivered {delivered} + dropped {dropped}: "
          f"{'holds' if ok else 'DOES NOT HOLD'}")

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        order = [r for r in ["host", "nvswitch", "leaf", "spine", "core"] if r in set(links.role)]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.boxplot([links.loc[links.role == r, "utilization"] for r in order], labels=order)
        ax.set_ylabel("egress utilization")
        ax.set_title(summary["name"])
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
