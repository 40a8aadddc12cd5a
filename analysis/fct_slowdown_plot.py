#!/usr/bin/python3
"""Plot and tabulate flow-completion-time slowdown by flow size, as the HPCC paper and its
artifact's analysis/fct_analysis.py do (scenarios/studies/hpcc_fct.py).

Usage: fct_slowdown_plot.py RESULTS... --out PNG --table MD

RESULTS are results folders named <workload>-<load>-<cc> of a leaf-spine run of RDMA flows.
A flow's slowdown is its FCT (start to last byte acknowledged) over its ideal FCT, at least 1.
The ideal is of the artifact's form: the base round trip of its path plus its bytes on the wire
at the host link's rate.  The base round trip is twice the path's propagation and switch
forwarding latencies plus one data frame's serialization at each link (the artifact
serializes the 1,000-byte payload alone, 0.2% less here); the wire bytes are the
payload plus each frame's headers, ICRC, FCS, preamble and gap (86 bytes; the artifact counts
48 per 1,000-byte packet).  Telemetry headers (HPCC) count against HPCC, as they would on a
real link.  Flows are sorted by size and cut into 20 bins of equal count; each bin shows the
50th, 95th and 99th percentile slowdown (the element at index int(n p) of its sorted list, as
the artifact's script does), placed at the bin's largest flow.
"""
import argparse
import csv
import json
import math
import re
from pathlib import Path

from plotting import human_bytes, save_whole, write_whole

OVERHEAD = 66 + 20  # headers, ICRC, FCS; preamble and gap
NS_PER_METRE = 5.0
PERCENTILES = (0.5, 0.95, 0.99)
BINS = 20


def rate_bps(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)\s*(bps|Kbps|Mbps|Gbps|Tbps)", text)
    if not m:
        raise SystemExit(f"cannot read the rate {text!r}")
    return float(m.group(1)) * {"bps": 1, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9,
                                "Tbps": 1e12}[m.group(2)]


def time_s(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)\s*(s|ms|us|ns|ps)", text)
    if not m:
        raise SystemExit(f"cannot read the time {text!r}")
    return float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}[m.group(2)]


def read(folder: Path) -> dict:
    summary = json.loads((folder / "summary.json").read_text())
    doc = summary["scenario"]
    topo = doc["topology"]
    if topo.get("kind") != "leaf_spine":
        raise SystemExit(f"{folder}: expected a leaf_spine run")
    nic = rate_bps(topo.get("nic_rate", "400Gbps"))
    fabric = rate_bps(topo.get("fabric_rate", "0bps")) or nic
    mtu = int(doc.get("port", {}).get("payload_mtu", 4096))
    forwarding = time_s(doc.get("switch", {}).get("forwarding_latency", "500ns"))
    d_host = float(topo.get("host_to_leaf_metres", 3)) * NS_PER_METRE * 1e-9
    d_fabric = float(topo.get("leaf_to_spine_metres", 30)) * NS_PER_METRE * 1e-9
    frame = (mtu + OVERHEAD) * 8
    # Host i of leaf i // hosts_per_leaf (one GPU per server: host ids are server ids).
    per_leaf = int(topo.get("hosts_per_leaf", 8))
    paths = {  # the links each way (delay, rate) and the switches crossed
        True: ([(d_host, nic), (d_host, nic)], 1),
        False: ([(d_host, nic), (d_fabric, fabric), (d_fabric, fabric), (d_host, nic)], 3),
    }
    # The base round trip: each link's propagation and each switch's forwarding latency twice
    # (the data's way and the ACK's) and one data frame's serialization a link (the ACK's is
    # left out, as the artifact leaves it out).
    base_rtt = {same: sum(2 * d + frame / r for d, r in links) + 2 * switches * forwarding
                for same, (links, switches) in paths.items()}
    slowdowns = []
    with open(folder / "flows.csv") as f:
        for r in csv.DictReader(f):
            if r["complete"] != "1":
                raise SystemExit(f"{folder}: flow {r['flow_id']} did not complete")
            size = int(r["bytes"])
            base = base_rtt[int(r["src"]) // per_leaf == int(r["dst"]) // per_leaf]
            ideal = base + (size + math.ceil(size / mtu) * OVERHEAD) * 8 / nic
            slowdowns.append((size, max(1.0, float(r["fct_us"]) * 1e-6 / ideal)))
    workload, load, cc = folder.name.rsplit("-", 2)
    return {"workload": workload, "load": int(load), "cc": cc, "flows": slowdowns}


def bins(flows: list) -> list:
    """[(largest size, {p: slowdown})] for BINS bins of equal count, by size."""
    flows = sorted(flows, key=lambda x: x[0])  # by size only: equal sizes keep their order
    n = len(flows)
    out = []
    for b in range(BINS):
        chunk = flows[b * n // BINS:(b + 1) * n // BINS]
        if not chunk:
            continue
        s = sorted(x[1] for x in chunk)
        out.append((chunk[-1][0], {p: s[min(len(s) - 1, int(len(s) * p))] for p in PERCENTILES}))
    return out


def percentile(values: list, p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--table", type=Path, required=True)
    args = parser.parse_args()
    runs = [read(r) for r in args.results]

    lines = ["| workload | load | cc | flows | short (< 100 KB) p50 / p95 / p99 | "
             "long (>= 1 MB) p50 / p95 / p99 |",
             "|---|---|---|---|---|---|"]
    for r in runs:
        short = [s for size, s in r["flows"] if size < 100_000]
        long = [s for size, s in r["flows"] if size >= 1_000_000]
        cell = lambda v: " / ".join(f"{percentile(v, p):.2f}" for p in PERCENTILES)
        lines.append(f"| {r['workload']} | {r['load']}% | {r['cc']} | {len(r['flows'])} | "
                     f"{cell(short)} | {cell(long)} |")
    write_whole("\n".join(lines) + "\n", args.table)
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = sorted({(r["workload"], r["load"]) for r in runs})
    fig, axes = plt.subplots(len(panels), len(PERCENTILES), squeeze=False,
                             figsize=(4.2 * len(PERCENTILES), 3.2 * len(panels)))
    for row, (workload, load) in enumerate(panels):
        for col, p in enumerate(PERCENTILES):
            ax = axes[row][col]
            for r in runs:
                if (r["workload"], r["load"]) != (workload, load):
                    continue
                b = bins(r["flows"])
                ax.plot(range(len(b)), [x[1][p] for x in b], marker=".", label=r["cc"])
                ticks = list(range(0, len(b), 4))
                ax.set_xticks(ticks)
                ax.set_xticklabels([human_bytes(b[t][0]) for t in ticks], fontsize=7)
            ax.set_yscale("log")
            ax.set_title(f"{workload} {load}%: p{round(p * 100)} slowdown", fontsize=9)
            ax.set_xlabel("flow size, bytes (bins of 5% of flows, at each bin's largest)",
                          fontsize=8)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    save_whole(fig, args.out)


if __name__ == "__main__":
    main()
