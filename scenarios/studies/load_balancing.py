#!/usr/bin/python3
"""Load-balancing study: flow-hash ECMP against flowlets, adaptive routing, switch spraying and
host spraying with and without entropy recycling, on a permutation (on a whole fabric and on
one with degraded links), an all-to-all and a ring all-reduce.

    scenarios/studies/load_balancing.py [--out DIR] [--k 8] [--bytes 64MiB]

128 hosts of a k=8 fat-tree (non-blocking, 100 Gb/s links, PFC, no congestion control), each
host with BYTES: a random permutation of RDMA flows (every host sends BYTES to one host and
receives from one), the same with a tenth of the switch-to-switch links (26 of 256 at k=8,
drawn with a fixed seed) at a quarter of their rate from the start (lane loss), a pairwise
all-to-all of BYTES per rank, or a ring all-reduce of BYTES; each fabric a load-balancing rule
with the transport it needs:
  ecmp        FlowHash (per-flow ECMP), go-back-N
  flowlet     Flowlet (50 us gap), go-back-N: flowlets keep a flow in order on these paths
  adaptive    Adaptive (least-queued port), selective repeat: it reorders
  spray       PacketSpray (each switch sends each frame to its next port), selective repeat
  host-spray  FlowHash switches, each queue pair a new UDP source port per frame (Entropy
              Spray), selective repeat
  recycle     FlowHash switches, ports of frames acknowledged unmarked reused (Entropy
              Recycle), selective repeat
Writes OUT/<workload>-<fabric>/ results folders, OUT/load-balancing.png (each run's rate
beside the host links' payload rate) and OUT/load-balancing.md (time, rate, resent bytes).
"""
import argparse
import random
from pathlib import Path

import study

FABRICS = {
    "ecmp": ("FlowHash", "GoBackN", "Fixed"),
    "flowlet": ("Flowlet", "GoBackN", "Fixed"),
    "adaptive": ("Adaptive", "SelectiveRepeat", "Fixed"),
    "spray": ("PacketSpray", "SelectiveRepeat", "Fixed"),
    "host-spray": ("FlowHash", "SelectiveRepeat", "Spray"),
    "recycle": ("FlowHash", "SelectiveRepeat", "Recycle"),
}


WORKLOADS = {
    "permutation": None,
    "degraded": None,
    "alltoall": ("alltoall", "pairwise"),
    "allreduce": ("allreduce", "ring"),
}


def fabric_links(k: int) -> list:
    """The names of a k-ary fat-tree's switch-to-switch links, as links.csv names them."""
    half = k // 2
    names = [f"p{p}e{e}-p{p}a{a}" for p in range(k) for e in range(half) for a in range(half)]
    names += [f"p{p}a{a}-c{a * half + j}" for p in range(k) for a in range(half)
              for j in range(half)]
    return names


def degraded_links(k: int) -> list:
    """A tenth of the fabric links, drawn with a fixed seed: the same in every run."""
    links = fabric_links(k)
    return sorted(random.Random(1).sample(links, round(len(links) / 10)))


def scenario(workload: str, fabric: str, k: int, size: str) -> dict:
    rule, mode, entropy = FABRICS[fabric]
    doc = {
        "name": f"{workload}-{fabric}",
        "description": f"load-balancing study: {workload} of {size} per host over a k={k} "
                       f"fat-tree, {rule}, {mode}, entropy {entropy}",
        "seed": 1,
        "topology": {"kind": "fat_tree", "k": k, "nic_rate": "100Gbps"},
        "switch": {"load_balancing": rule},
        "rdma": {"retransmission_mode": mode, "entropy": entropy},
    }
    if WORKLOADS[workload]:
        op, algorithm = WORKLOADS[workload]
        doc["collective"] = {"op": op, "algorithm": algorithm, "bytes": size}
    else:
        doc["traffic"] = {"pattern": "permutation", "transport": "rdma", "bytes": size}
    if workload == "degraded":
        doc["failures"] = {"inject": [
            {"component": name, "mode": "lane_loss", "rate_fraction": 0.25, "at": "0s"}
            for name in degraded_links(k)]}
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
