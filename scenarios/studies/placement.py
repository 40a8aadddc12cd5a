#!/usr/bin/python3
"""Placement study: the same tensor x data-parallel job placed packed and scattered on a 2:1
oversubscribed leaf-spine.

    scenarios/studies/placement.py [--out DIR] [--seeds 1,2,3]

64 GPUs on 8 servers of 8 (one server per leaf, 400 Gb/s NICs, half the uplinks).  The job
runs TP = 8 x DP = 8: four layers, two micro-batches, two 1 MiB tensor-parallel all-reduces
per layer each way, and 32 MiB of gradients per rank reduced over its data-parallel group,
with 2 ms of compute.  Packed keeps each tensor-parallel group on one server's NVLink and
puts data-parallel peers on one rail; scattered (a random set and order, one run per seed)
sends the per-layer all-reduces across the oversubscribed fabric.

Writes OUT/<placement>/ results folders and, through analysis/fabric_compare.py,
OUT/placement.png and OUT/placement.csv.
"""
import argparse
from pathlib import Path

import study


def scenario(placement: str, seed: int) -> dict:
    return {
        "name": "leaf-spine-2to1",
        "description": f"placement study: TP 8 x DP 8 on 64 GPUs, {placement}",
        "seed": seed,
        "topology": {"kind": "leaf_spine", "leaves": 8, "hosts_per_leaf": 8,
                     "oversubscription": 2, "servers": 8, "gpus_per_server": 8,
                     "nic_rate": "400Gbps"},
        "training": {
            "timeline_max_spans": 0,
            "jobs": [{
                "name": "tp8dp8",
                "ranks": 64,
                "tensor_parallel": 8,
                "iterations": 2,
                "compute_time": "2ms",
                "layers": 4,
                "micro_batches": 2,
                "activation_bytes": 1048576,
                "parameters": 67108864,
                "placement": placement,
            }],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("placement"))
    parser.add_argument("--seeds", default="1,2,3")
    args = parser.parse_args()
    scenarios = {"packed": scenario("packed", 1)}
    for seed in args.seeds.split(","):
        scenarios[f"scattered-seed{seed}"] = scenario("scattered", int(seed))
    folders = study.run_all(scenarios, args.out)
    labels = [f"--label={f}={f.name}" for f in folders]
    study.analyse("fabric_compare.py", *folders, *labels, "--out", args.out / "placement.png",
                  "--csv", args.out / "placement.csv",
                  "--title", "placement on a 2:1 leaf-spine: TP 8 x DP 8, 64 GPUs")


if __name__ == "__main__":
    main()
