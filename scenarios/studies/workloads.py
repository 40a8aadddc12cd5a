#!/usr/bin/python3
"""Workload study: a dense and a mixture-of-experts model preset on 1,024 GPUs, on a
rail-optimized fabric and on a 2:1 oversubscribed leaf-spine, both of 400G NICs.

    scenarios/studies/workloads.py [--out DIR] [--models llama3-405b,mixtral-8x7b]
                                   [--fabrics rail-optimized,leaf-spine-2to1]

Models (scenarios/models/), each one iteration at fidelity collective (every pipelined
collective in its steady state), sequence parallelism where TP > 1, ZeRO-1:
  llama3-405b    TP 8, PP 16 with 7 layers on the first and last stages (Llama 3's published
                 layout, Dubey et al. 2024, section 3.3.2 and Table 4), DP 8, 32 micro-batches
                 of one 8192-token sequence (the paper's 32 sequences per replica), in plain
                 1F1B (the paper's schedule is interleaved: not with uneven stages here)
  mixtral-8x7b   TP 1, EP 8 (Megatron-LM's advice for Mixtral: EP 8 x TP 1), PP 4, DP 32,
                 16 micro-batches of one 32768-token sequence (no published setup)
Fabrics, 128 servers of 8 GPUs (NVLink inside, one 400 Gb/s NIC per GPU):
  rail-optimized   groups of 32 servers under their 8 rail leaves, every leaf to every spine
  leaf-spine-2to1  32 leaves of 32 NICs (4 servers) with 16 uplinks each, 16 spines

Writes OUT/<model>-<fabric>/ results folders and, through analysis/workload_plot.py,
OUT/workloads.png (each run's iteration split into compute and what each rank waits for)
and OUT/workloads.md (iteration, MFU, tokens per second, the split).
"""
import argparse
from pathlib import Path

import study

GPUS = 1024
GPUS_PER_SERVER = 8

FABRICS = {
    "rail-optimized": {"kind": "rail_optimized", "servers_per_group": 32},
    "leaf-spine-2to1": {"kind": "leaf_spine", "leaves": 32, "hosts_per_leaf": 32,
                        "oversubscription": 2},
}

MODELS = {
    "llama3-405b": {"tensor_parallel": 8, "pipeline_parallel": 16, "sequence_parallel": True,
                    "first_stage_layers": 7, "last_stage_layers": 7, "micro_batches": 32},
    "mixtral-8x7b": {"tensor_parallel": 1, "expert_parallel": 8, "pipeline_parallel": 4,
                     "micro_batches": 16},
}


def scenario(model: str, fabric: str) -> dict:
    topology = {**FABRICS[fabric], "servers": GPUS // GPUS_PER_SERVER,
                "gpus_per_server": GPUS_PER_SERVER, "nic_rate": "400Gbps"}
    return {
        "name": f"{model}-{fabric}",
        "description": f"workload study: {model} on {GPUS} GPUs, {fabric}",
        "seed": 1,
        "fidelity": "collective",
        "topology": topology,
        "training": {
            "timeline_max_spans": 0,
            "jobs": [{
                "name": model.split("-")[0],
                "ranks": GPUS,
                **MODELS[model],
                "distributed_optimizer": True,
                "micro_batch_size": 1,
                "iterations": 1,
                "model": str(study.ROOT / "scenarios" / "models" / f"{model}.json"),
            }],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("workloads"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--fabrics", default=",".join(FABRICS))
    args = parser.parse_args()
    for name, known in (("models", MODELS), ("fabrics", FABRICS)):
        for item in getattr(args, name).split(","):
            if item not in known:
                raise SystemExit(f"workloads: --{name}: unknown '{item}' "
                                 f"(one of {', '.join(known)})")
    scenarios = {f"{m}-{f}": scenario(m, f)
                 for m in args.models.split(",") for f in args.fabrics.split(",")}
    folders = study.run_all(scenarios, args.out)
    study.analyse("workload_plot.py", *folders, "--out", args.out / "workloads.png",
                  "--table", args.out / "workloads.md")


if __name__ == "__main__":
    main()
