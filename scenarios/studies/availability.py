#!/usr/bin/python3
"""Availability study: what failures cost a 16,384-GPU training job, and at which checkpoint
interval it loses least.

    scenarios/studies/availability.py [--out DIR] [--runs 4]

Step 1, packet level (job64): a data-parallel job on 64 GPUs (8 servers x 8, rail-optimized,
400G NICs) is run healthy and in each degraded fabric state its failure modes lead to: a dead
leaf-spine link after routing converged, one host link at half its lanes, one host link with a
bit-error rate of 1e-8 (RDMA go-back-N pays for every corrupted frame).  Each state's iteration
time over the healthy one is the whole job's slowdown from one bad link.

Step 2, long horizon (cluster16k): the 16,384-GPU rail-optimized cluster's components (from its
bill of materials) fail over Llama 3's 54-day run, 4 independent histories, at checkpoint
intervals from 5 min to 4 h.  Its healthy iteration time is 5.9 s (405B parameters x 6 FLOP x
16M tokens on 16,384 GPUs at 400 TFLOP/s); each degraded state costs the slowdown measured in
step 1.

Per-kind MTBFs, from Llama 3's interruption counts (Dubey et al. 2024, table 5: 54 days on
16,384 H100s) divided over this cluster's components:
  gpu      79,230 h  268 interruptions (faulty GPU, HBM3, SRAM, GSP, SDC, thermal) / 16,384 GPUs
  nic   3,033,000 h  7 / 16,384 NICs
  server  189,600 h  14 host faults (SSD, PSU, chassis, IO board, CPU, memory) / 2,048 servers
  switch  107,000 h  Singh et al. (SIGCOMM CCR 2021): 2% of switches fail within 3 months
  link    737,000 h  the 35 network interruptions less the 6.2 expected of the 512 leaves, over
                     the 16,384 host links that interrupt the job; the same rate for fabric links
Gray failures have no public rate: transceivers losing half their lanes (MTBF 2e6 h) and links
with bit errors (MTBF 1e6 h), each repaired in 4 h, are assumptions to vary.

Writes OUT/job64/, OUT/cluster16k/ and, through analysis/goodput_plot.py, OUT/goodput.png and
OUT/goodput.csv.
"""
import argparse
import json
from pathlib import Path

import study

# Per-kind failure modes shared by both steps (see the docstring for the sources).
FAILURE_MODES = [
    {"kind": "gpu", "mtbf": "79230h", "mttr": "0s"},
    {"kind": "nic", "mtbf": "3033000h", "mttr": "0s"},
    {"kind": "server", "mtbf": "189600h", "mttr": "0s"},
    {"kind": "switch", "mtbf": "107000h", "mttr": "4h"},
    {"kind": "link", "mtbf": "737000h", "mttr": "4h"},
    {"kind": "transceiver", "mode": "lane_loss", "mtbf": "2e6h", "mttr": "4h",
     "rate_fraction": 0.5},
    {"kind": "link", "mode": "bit_errors", "mtbf": "1e6h", "mttr": "4h", "bit_error_rate": 1e-8},
]
HEALTHY_16K_S = 405e9 * 6 * 16e6 / (16384 * 400e12)
INTERVALS = ["5min", "10min", "15min", "20min", "30min", "45min", "1h", "2h", "4h"]
CHECKPOINT = {"checkpoint_time": "60s", "restart_time": "10min"}


def job64() -> dict:
    modes = [dict(m) for m in FAILURE_MODES]
    # At 64 GPUs the host links carry the gray failures too (the cluster's transceivers sit on
    # leaf-spine links, which a rail-local job does not use).
    modes.append({"kind": "link", "mode": "lane_loss", "mtbf": "2e6h", "mttr": "4h",
                  "rate_fraction": 0.5})
    return {
        "name": "job64",
        "description": "availability study, step 1: a 64-GPU data-parallel job measured healthy "
                       "and with one bad link",
        "seed": 1,
        "topology": {"kind": "rail_optimized", "servers": 8, "gpus_per_server": 8,
                     "nic_rate": "400Gbps"},
        "training": {"timeline_max_spans": 0, "jobs": [{
            "name": "dp64", "ranks": 64, "iterations": 3, "compute_time": "400us",
            "parameters": 8388608}]},
        "failures": {"components": modes},
        "availability": {"horizon": "54d", **CHECKPOINT, "bit_error_rate": 1e-8, "rate_fraction": 0.5},
    }


def cluster16k(states: dict, runs: int) -> dict:
    healthy = states["healthy"]["iteration_s"]
    times = {"healthy": f"{HEALTHY_16K_S}s"}
    for name, s in states.items():
        if name != "healthy" and s["iteration_s"] > 0:
            times[name] = f"{HEALTHY_16K_S * s['iteration_s'] / healthy}s"
    return {
        "name": "cluster16k",
        "description": "availability study, step 2: a 16,384-GPU job over 54 days",
        "seed": 1,
        "topology": {"kind": "rail_optimized", "servers": 2048, "gpus_per_server": 8,
                     "servers_per_group": 32, "nic_rate": "400Gbps"},
        "failures": {"components": FAILURE_MODES},
        "availability": {"horizon": "54d", **CHECKPOINT, "runs": runs,
                         "iteration_times": times, "sweep_intervals": INTERVALS},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("availability"))
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    [packet] = study.run_all({"job64": job64()}, args.out)
    states = json.loads((packet / "summary.json").read_text())["availability"]["fabric_states"]
    healthy = states["healthy"]["iteration_s"]
    for name, s in states.items():
        if s["iteration_s"] > 0:
            print(f"64 GPUs, {name}: {s['iteration_s'] * 1e3:.3f} ms "
                  f"({s['iteration_s'] / healthy:.3f} x healthy, {s['source']}"
                  + (f", link {s['link']}" if "link" in s else "") + ")")
    [cluster] = study.run_all({"cluster16k": cluster16k(states, args.runs)}, args.out)
    a = json.loads((cluster / "summary.json").read_text())["availability"]
    print(f"16,384 GPUs: expected MTBI {a['expected_mtbi_s'] / 3600:.2f} h, "
          f"{a['expected_interruptions_per_day']:.2f} interruptions/day expected, "
          f"{a['interruptions_per_day']:.2f} simulated; Young {a['young_interval_s'] / 60:.1f} "
          f"min, Daly {a['daly_interval_s'] / 60:.1f} min; goodput at Daly {a['goodput']:.4f} "
          f"(closed form {a['closed_form_goodput']:.4f})")
    study.analyse("goodput_plot.py", cluster, "--out", args.out / "goodput.png",
                  "--csv", args.out / "goodput.csv")


if __name__ == "__main__":
    main()
