#!/usr/bin/python3
"""Recomputation study: Megatron-Turing NLG 530B's layers with no, selective and full activation
recomputation, beside Korthikanti et al.'s published MFU (54.2% selective, 42.1% full).

    scenarios/studies/recompute.py [--out DIR]

One 8-GPU server (the module's default H100-class GPUs, NVLink), TP 8 with sequence
parallelism, the whole 105-layer model on it, 4 micro-batches of one 2048-token sequence,
at flow level (the same collectives as flows: NVLink has no queues to model here).  Korthikanti et al. ("Reducing Activation Recomputation in Large Transformer
Models", MLSys 2023, abstract) trained it on 2,240 A100s with TP 8 and PP 35: the ratio of
their MFUs, 54.2 / 42.1 = 1.287, is the ratio of the iteration times with full and selective
recomputation, the model FLOPs being the same.  The mechanism's compute-bound ratio is
(4 F) / (3 F + 4 b s^2 h) per layer, F = 24 b s h^2 + 4 b s^2 h its forward.

Writes OUT/<mode>/ results folders and prints the table.
"""
import argparse
import json
from pathlib import Path

import study

MODES = ["none", "selective", "full"]
PUBLISHED = 54.2 / 42.1


def scenario(mode: str) -> dict:
    return {
        "name": f"recompute-{mode}",
        "description": f"recomputation study: MT-NLG 530B's layers on 8 GPUs, recompute {mode}",
        "seed": 1,
        "fidelity": "flow",
        "topology": {"kind": "rail_optimized", "servers": 1},
        "training": {
            "timeline_max_spans": 0,
            "jobs": [{
                "name": "mtnlg",
                "ranks": 8,
                "tensor_parallel": 8,
                "sequence_parallel": True,
                "micro_batches": 4,
                "micro_batch_size": 1,
                "recompute": mode,
                "iterations": 1,
                "model": str(study.ROOT / "scenarios" / "models" / "mt-nlg-530b.json"),
            }],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("recompute"))
    args = parser.parse_args()
    folders = study.run_all({m: scenario(m) for m in MODES}, args.out)
    jobs = {m: json.loads((f / "summary.json").read_text())["training"]["jobs"][0]
            for m, f in zip(MODES, folders)}
    h, s = 20480, 2048
    forward = 24 * s * h * h + 4 * s * s * h
    closed = 4 * forward / (3 * forward + 4 * s * s * h)
    print("| recompute | iteration (s) | MFU |")
    print("|---|---|---|")
    for m in MODES:
        print(f"| {m} | {jobs[m]['mean_iteration_s']:.4f} | {jobs[m]['model']['mfu']:.4f} |")
    ratio = jobs["full"]["mean_iteration_s"] / jobs["selective"]["mean_iteration_s"]
    print(f"\nfull / selective: simulated {ratio:.4f}, compute-bound closed form {closed:.4f}, "
          f"published (Korthikanti et al.) {PUBLISHED:.4f}: {ratio / PUBLISHED - 1:+.1%}")


if __name__ == "__main__":
    main()
