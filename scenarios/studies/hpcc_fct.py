#!/usr/bin/python3
"""HPCC's flow-completion-time study (Li et al., SIGCOMM 2019, section 5.3) on this simulator:
DCQCN, HPCC and DCTCP under WebSearch and FB_Hadoop flows at 30% and 50% load.

    scenarios/studies/hpcc_fct.py [--out DIR] [--duration 10ms] [--loads 0.3,0.5]

The fabric is the HPCC artifact's (alibaba-edu/High-Precision-Congestion-Control,
simulation/mix/fat.txt) as far as this simulator's topologies reach: its 320 hosts, 16 to a
ToR on 100 Gb/s links, each ToR with 4 x 400 Gb/s uplinks (non-blocking), every link 1 us
(200 m of cable), switches without a pipeline delay, 1,000-byte payloads, an ACK per frame,
a 32 MiB switch buffer with PFC.  The artifact has 5 pods of 4 ToRs and 4 aggregation
switches under 16 cores (paths of up to 6 links); here the 20 ToRs share 4 spines (leaf-spine,
paths of up to 4 links).  Each host opens flows as a Poisson process at the load (sizes from
the artifact's CDFs, destinations uniform) for DURATION; the run lasts until every flow is
acknowledged.  Settings per congestion control, as the artifact's run.py sets them for its
published runs:
  dcqcn  ECN ramp 400 KB - 1.6 MB at 100G (per 25G: 100 - 400 KB), Pmax 0.2; alpha timer
         1 us, rate timer 300 us, one CNP per 4 us; 20 Mb/s AI, 200 Mb/s HAI at 100G
  hpcc   eta 0.95, maxStage 0, 40 Mb/s AI at 100G, window R T, T the fabric's largest base
         round trip; no ECN
  dctcp  ECN step at 300 KB at 100G (75 KB per 25G), Pmax 1; g 1/16, 615 Mb/s AI, window R T
The artifact limits DCQCN's rate cuts to one per 4 us at the sender; here the responder sends
at most one CNP per 4 us, the same in effect.
Writes OUT/<workload>-<load>-<cc>/ results folders, OUT/fct-slowdown.png (p50, p95 and p99
slowdown by flow size) and OUT/fct-slowdown.md (analysis/fct_slowdown_plot.py).
"""
import argparse
from pathlib import Path

import study

WORKLOADS = ("web_search", "fb_hadoop")

CONTROLS = {
    "dcqcn": ({}, {"dcqcn": {"alpha_timer": "1us", "rate_timer": "300us"},
                   "cnp_interval": "4us"}),
    "hpcc": ({"ecn_enabled": False}, {}),
    "dctcp": ({"ecn_kmin_per_25g": "75KB", "ecn_kmax_per_25g": "75KB", "ecn_pmax": 1.0},
              {"dctcp": {"additive_increase": "615Mbps"}}),
}


def scenario(workload: str, load: float, cc: str, duration: str) -> dict:
    port, rdma = CONTROLS[cc]
    return {
        "name": f"{workload}-{round(load * 100)}-{cc}",
        "description": f"HPCC FCT study: {workload} flows at {load:.0%} load, {cc}, over the "
                       "320 hosts of 20 ToRs (100G, 4 x 400G uplinks, 1 us links)",
        "seed": 1,
        "topology": {"kind": "leaf_spine", "leaves": 20, "hosts_per_leaf": 16,
                     "oversubscription": 4, "nic_rate": "100Gbps", "fabric_rate": "400Gbps",
                     "host_to_leaf_metres": 200, "leaf_to_spine_metres": 200},
        "switch": {"forwarding_latency": "0ns"},
        "port": {"payload_mtu": 1000, **port},
        "rdma": {"congestion_control": cc, **rdma},
        "traffic": {"pattern": "poisson", "flow_sizes": workload, "load": load,
                    "duration": duration, "transport": "rdma"},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("hpcc-fct"))
    parser.add_argument("--duration", default="10ms")
    parser.add_argument("--loads", default="0.3,0.5")
    args = parser.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    runs = {}
    for workload in WORKLOADS:
        for load in loads:
            for cc in CONTROLS:
                doc = scenario(workload, load, cc, args.duration)
                runs[doc["name"]] = doc
    folders = study.run_all(runs, args.out)
    study.analyse("fct_slowdown_plot.py", *folders, "--out", args.out / "fct-slowdown.png",
                  "--table", args.out / "fct-slowdown.md")


if __name__ == "__main__":
    main()
