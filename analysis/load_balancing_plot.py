#!/usr/bin/python3
"""Plot and tabulate a load-balancing study (scenarios/studies/load_balancing.py): each run's
time and rate, and what its queue pairs resent.

Usage: load_balancing_plot.py RESULTS... --out PNG --table MD

RESULTS are results folders named <workload>-<fabric>, each one collective run (its time and
busbw) or one set of flows (the last flow's finish, and the slowest flow's bytes over its
completion time).  The table sets the rate against the host link's payload rate (100 Gb/s,
4,096-byte frames of 4,182 bytes on the wire with preamble and gap: 12.24 GB/s) and gives the
RDMA payload resent.
"""
import argparse
import csv
import json
from pathlib import Path

from plotting import save_whole, write_whole

PAYLOAD_GBPS = 100e9 / 8 * 4096 / 4182 / 1e9  # host link payload rate, GB/s


def read(folder: Path) -> dict:
    summary = json.loads((folder / "summary.json").read_text())
    workload, fabric = folder.name.split("-", 1)
    rdma = summary.get("rdma", {})
    run = {"workload": workload, "fabric": fabric,
           "resent": rdma.get("payload_retransmitted_bytes", 0),
           "sent": rdma.get("payload_sent_bytes", 0)}
    if (folder / "collectives.csv").is_file():
        with open(folder / "collectives.csv") as f:
            rows = list(csv.DictReader(f))
        if len(rows) != 1 or rows[0]["status"] != "complete":
            raise SystemExit(f"{folder}: expected one complete collective run")
        return {**run, "time_us": float(rows[0]["time_us"]), "rate": float(rows[0]["busbw_GBps"]),
                "metric": "busbw"}
    with open(folder / "flows.csv") as f:
        flows = list(csv.DictReader(f))
    if not flows or any(r["complete"] != "1" for r in flows):
        raise SystemExit(f"{folder}: expected every flow complete")
    slowest = max(flows, key=lambda r: float(r["fct_us"]))
    return {**run, "time_us": max(float(r["finish_us"]) for r in flows),
            "rate": float(slowest["bytes"]) / float(slowest["fct_us"]) / 1e3,
            "metric": "slowest flow"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--table", type=Path, required=True)
    args = parser.parse_args()
    runs = [read(r) for r in args.results]

    lines = ["| workload | fabric | time (us) | rate (GB/s) | rate is | of link payload rate "
             "| resent |",
             "|---|---|---|---|---|---|---|"]
    for r in runs:
        resent = r["resent"] / r["sent"] if r["sent"] else 0
        lines.append(f"| {r['workload']} | {r['fabric']} | {r['time_us']:.1f} | "
                     f"{r['rate']:.2f} | {r['metric']} | {r['rate'] / PAYLOAD_GBPS:.1%} | "
                     f"{resent:.2%} |")
    write_whole("\n".join(lines) + "\n", args.table)
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    workloads = list(dict.fromkeys(r["workload"] for r in runs))
    fig, axes = plt.subplots(1, len(workloads), figsize=(4 * len(workloads), 3.2), squeeze=False)
    for ax, w in zip(axes[0], workloads):
        mine = [r for r in runs if r["workload"] == w]
        ax.bar([r["fabric"] for r in mine], [r["rate"] for r in mine], color="tab:blue")
        ax.axhline(PAYLOAD_GBPS, color="gray", linestyle="--", label="link payload rate")
        ax.set_title(w)
        ax.set_ylabel(f"{mine[0]['metric']} (GB/s)")
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    save_whole(fig, args.out)


if __name__ == "__main__":
    main()
