#!/usr/bin/python3
"""Load-balancing study: flow-hash ECMP against flowlets, adaptive routing and packet spraying
on a permutation, an all-to-all and a ring all-reduce.

    scenarios/studies/load_balancing.py [--out DIR] [--k 8] [--bytes 64MiB]

128 hosts of a k=8 fat-tree (non-blocking, 100 Gb/s links, PFC, no congestion control), each
host with BYTES: a random permutation of RDMA flows (every host sends BYTES to one host and
receives from one), a pairwise all-to-all of BYTES per rank, or a ring all-reduce of BYTES;
each fabric a switch load-balancing rule with the transport it needs:
  ecmp      FlowHash (per-flow ECMP), go-back-N
  flowlet   Flowlet (50 us gap), go-back-N: flowlets keep a flow in order on these paths
  adaptive  Adaptive (least-queued port), selective repeat: it reorders
  spray     PacketSpray (each frame to the next port), selective repeat
Writes OUT/<workload>-<fabric>/ results folders, OUT/load-balancing.png (each run's rate
beside the host links' payload rate) and OUT/load-balancing.md (time, rate, resent bytes).
"""
import argparse
from pathlib import Path

import study

FABRICS = {
    "ecmp": ("FlowHash", "GoBackN"),
    "flowlet": ("Flowlet", "GoBackN"),
    "adaptive": ("Adaptive", "SelectiveRepeat"),
    "spray": ("PacketSpray", "SelectiveRepeat"),
}


WORKLOADS = {
    "permutation": None,
    "alltoall": ("alltoall", "pairwise"),
    "allreduce": ("allreduce", "ring"),
}


def scenario(workload: str, fabric: str, k: int, size: str) -> dict:
    rule, mode = FABRICS[fabric]
    doc = {
        "name": f"{workload}-{fabric}",
        "description": f"load-balancing study: {workload} of {size} per host over a k={k} "
                       f"fat-tree, {rule}, {mode}",
        "seed": 1,
        "topology": {"kind": "fat_tree", "k": k, "nic_rate": "100Gbps"},
        "switch": {"load_balancing": rule},
        "rdma": {"retransmission_mode": mode},
    }
    if WORKLOADS[workload]:
        op, algorithm = WORKLOADS[workload]
        doc["collective"] = {"op": op, "algorithm": algorithm, "bytes": size}
    else:
        doc["traffic"] = {"pattern": "permutation", "transport": "rdma", "bytes": size}
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("load-balancing"))
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--bytes", default="64MiB")
    args = parser.parse_args()
    runs = {f"{w}-{f}": scenario(w, f, args.k, args.bytes) for w in WORKLOADS for f in FABRICS}
    folders = study.run_all(runs, args.out)
    study.analyse("load_balancing_plot.py", *folders, "--out", args.out / "load-balancing.png",
                  "--table", args.out / "load-balancing.md")


if __name__ == "__main__":
    main()
