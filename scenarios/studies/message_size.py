#!/usr/bin/python3
"""Message-size study: where a data-parallel job's gradient all-reduce is latency-bound and
where it is bandwidth-bound.

    scenarios/studies/message_size.py [--out DIR]

16 GPUs on a k=4 fat-tree of 400 Gb/s links run a job with no compute whose iteration is one
ring all-reduce of its gradients (one bucket), for gradients of 4 KiB to 64 MiB per GPU.
analysis/message_size_plot.py fits time = alpha + bytes x beta through the ends of the sweep
and marks n_1/2 = alpha / beta, the size at which the all-reduce reaches half its bandwidth:
below it the job's collectives are latency-bound (more bytes cost almost nothing), above it
bandwidth-bound (time grows with bytes).

Writes OUT/<bytes>/ results folders, OUT/message-size.png and OUT/message-size.csv.
"""
import argparse
from pathlib import Path

import study

SIZES = [4096 * 4 ** i for i in range(8)]  # 4 KiB .. 64 MiB


def scenario(gradient_bytes: int) -> dict:
    return {
        "name": "fat-tree-k4",
        "description": f"message-size study: {gradient_bytes} B of gradients per GPU, 16 GPUs",
        "seed": 1,
        "topology": {"kind": "fat_tree", "k": 4, "nic_rate": "400Gbps"},
        "training": {
            "timeline_max_spans": 0,
            "jobs": [{
                "name": "dp",
                "ranks": 16,
                "iterations": 3,
                "parameters": gradient_bytes // 4,
                "bucket_bytes": gradient_bytes,
                "algorithms": {"data": "ring"},
            }],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("message-size"))
    args = parser.parse_args()
    folders = study.run_all({str(b): scenario(b) for b in SIZES}, args.out)
    study.analyse("message_size_plot.py", *folders, "--out", args.out / "message-size.png",
                  "--csv", args.out / "message-size.csv")


if __name__ == "__main__":
    main()
