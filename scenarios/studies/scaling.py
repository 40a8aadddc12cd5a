#!/usr/bin/python3
"""Scaling study: the same data-parallel job at 16 to 256 GPUs on five fabrics.

    scenarios/studies/scaling.py [--out DIR] [--sizes 16,32,64,128,256]

Each GPU trains the same work per iteration (weak scaling): 400 us of compute and the
all-reduce of 32 MiB of FP32 gradients (8,388,608 parameters) in 25 MiB buckets overlapped
with the backward pass, on servers of 8 H100-class GPUs (NVLink inside, one 400 Gb/s NIC per
GPU).  The job is a scale model: a real data-parallel job has seconds of compute and GBs of
gradients per iteration, but what decides utilization is the ratio of the two and the fabric,
and packets cost simulation time.

Fabrics, each sized to the job (one server per leaf switch, 8 ports down):
  leaf-spine 1:1   two-tier non-blocking Clos (a folded fat-tree)
  leaf-spine 2:1   half the uplinks
  leaf-spine 4:1   a quarter
  rail-optimized   one leaf per rail, spines joining the rails
  rail-only        rail leaves only; traffic between rails crosses NVLink first

Writes OUT/<fabric>-<gpus>/ results folders and, through analysis/scaling_plot.py,
OUT/scaling.png and OUT/scaling.csv.
"""
import argparse
from pathlib import Path

import study

FABRICS = {
    "leaf-spine-1to1": lambda servers: {"kind": "leaf_spine", "oversubscription": 1},
    "leaf-spine-2to1": lambda servers: {"kind": "leaf_spine", "oversubscription": 2},
    "leaf-spine-4to1": lambda servers: {"kind": "leaf_spine", "oversubscription": 4},
    "rail-optimized": lambda servers: {"kind": "rail_optimized"},
    "rail-only": lambda servers: {"kind": "rail_optimized", "rail_only": True},
}
GPUS_PER_SERVER = 8
HOSTS_PER_LEAF = 8


def topology(fabric: str, gpus: int) -> dict:
    servers = gpus // GPUS_PER_SERVER
    t = FABRICS[fabric](servers)
    t.update({"servers": servers, "gpus_per_server": GPUS_PER_SERVER, "nic_rate": "400Gbps"})
    if t["kind"] == "leaf_spine":
        t.update({"leaves": gpus // HOSTS_PER_LEAF, "hosts_per_leaf": HOSTS_PER_LEAF})
    return t


def scenario(fabric: str, gpus: int) -> dict:
    return {
        "name": f"{fabric}",
        "description": f"scaling study: data-parallel job on {gpus} GPUs, {fabric}",
        "seed": 1,
        "topology": topology(fabric, gpus),
        "training": {
            "timeline_max_spans": 0,
            "jobs": [{
                "name": "dp",
                "ranks": gpus,
                "iterations": 2,
                "compute_time": "400us",
                "parameters": 8388608,
                "samples_per_iteration": 8 * gpus,
                "tokens_per_sample": 2048,
            }],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("scaling"))
    parser.add_argument("--sizes", default="16,32,64,128,256")
    parser.add_argument("--fabrics", default=",".join(FABRICS))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for gpus in sizes:
        if gpus % HOSTS_PER_LEAF:
            raise SystemExit(f"scaling: --sizes: {gpus} is not a multiple of {HOSTS_PER_LEAF}")
    scenarios = {f"{fabric}-{gpus}": scenario(fabric, gpus)
                 for fabric in args.fabrics.split(",") for gpus in sizes}
    folders = study.run_all(scenarios, args.out)
    study.analyse("scaling_plot.py", *folders, "--out", args.out / "scaling.png",
                  "--csv", args.out / "scaling.csv")


if __name__ == "__main__":
    main()
