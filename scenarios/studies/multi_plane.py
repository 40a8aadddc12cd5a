#!/usr/bin/python3
"""Multi-plane study: one 400G plane against four planes of 100G, with a share of the fabric's
switch-to-switch links failed, on a permutation of flows (tail completion time) and a pairwise
all-to-all (collective time).

    scenarios/studies/multi_plane.py [--out DIR] [--failed 0,2.5,5,10]

128 single-GPU servers on a non-blocking leaf-spine (8 leaves of 16, 16 spines per plane), 400G
NICs, PFC, no congestion control, selective repeat; a FAILED percent of each fabric's
leaf-to-spine links (drawn with a fixed seed) down from the start, routing converged around
them (routing.convergence_delay 0).  Fabrics:
  1x400G-ecmp     one plane; each queue pair one UDP source port (flow-hash ECMP)
  1x400G-recycle  one plane; entropy recycling (rdma.entropy Recycle)
  4x100G-recycle  four planes of 100G (topology.planes 4); the NIC serves its four ports in
                  turn, entropy recycling inside each plane
Workloads: a random permutation of 16 MiB RDMA flows; a pairwise all-to-all of 64 MiB per rank
(512 KiB to each other rank).
Writes OUT/<workload>-<fabric>-<failed>/ results folders, OUT/multi-plane.png and
OUT/multi-plane.md (all-to-all time and busbw; the permutation's median, 99th-percentile and
slowest completion time).
"""
import argparse
import random
from pathlib import Path

import study

LEAVES, HOSTS_PER_LEAF, SPINES = 8, 16, 16

FABRICS = {
    "1x400G-ecmp": (1, "Fixed"),
    "1x400G-recycle": (1, "Recycle"),
    "4x100G-recycle": (4, "Recycle"),
}

WORKLOADS = {
    "permutation": None,
    "alltoall": ("alltoall", "pairwise"),
}


def fabric_links(planes: int) -> list:
    """The leaf-to-spine links' names, as links.csv names them."""
    suffixes = [f"_p{p}" for p in range(planes)] if planes > 1 else [""]
    return [f"l{leaf}{s}-sp{spine}{s}" for s in suffixes for leaf in range(LEAVES)
            for spine in range(SPINES)]


def failed_links(planes: int, percent: float) -> list:
    """PERCENT of the fabric links, drawn with a fixed seed (a larger share keeps the smaller's)."""
    links = fabric_links(planes)
    order = random.Random(1).sample(links, len(links))
    return sorted(order[:round(len(links) * percent / 100)])


def scenario(workload: str, fabric: str, percent: float) -> dict:
    planes, entropy = FABRICS[fabric]
    doc = {
        "name": f"{workload}-{fabric}-{percent:g}",
        "description": f"multi-plane study: {workload} over {fabric}, {percent:g}% of the "
                       "leaf-to-spine links failed",
        "seed": 1,
        "topology": {"kind": "leaf_spine", "leaves": LEAVES, "hosts_per_leaf": HOSTS_PER_LEAF,
                     "nic_rate": "400Gbps", "planes": planes},
        "routing": {"convergence_delay": "0s"},
        "rdma": {"retransmission_mode": "SelectiveRepeat", "entropy": entropy},
    }
    if WORKLOADS[workload]:
        op, algorithm = WORKLOADS[workload]
        doc["collective"] = {"op": op, "algorithm": algorithm, "bytes": "64MiB"}
    else:
        doc["traffic"] = {"pattern": "permutation", "transport": "rdma", "bytes": "16MiB"}
    failed = failed_links(planes, percent)
    if failed:
        doc["failures"] = {"inject": [{"component": name, "mode": "hard", "at": "0s"}
                                      for name in failed]}
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("multi-plane"))
    parser.add_argument("--failed", default="0,2.5,5,10",
                        help="percents of the leaf-to-spine links failed, comma-separated")
    args = parser.parse_args()
    percents = [float(p) for p in args.failed.split(",")]
    runs = {}
    for w in WORKLOADS:
        for f in FABRICS:
            for p in percents:
                doc = scenario(w, f, p)
                runs[doc["name"]] = doc
    folders = study.run_all(runs, args.out)
    study.analyse("multi_plane_plot.py", *folders, "--out", args.out / "multi-plane.png",
                  "--table", args.out / "multi-plane.md")


if __name__ == "__main__":
    main()
