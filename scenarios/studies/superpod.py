#!/usr/bin/python3
"""SuperPOD-slice study: every collective operation, as NCCL's tuner runs it, on 1, 4, 16 and
32 DGX H100 servers, beside the published nccl-tests figures of validation/.

    scenarios/studies/superpod.py [--out DIR] [--servers 1,4,16,32]

Each run is a collective sweep (the runner's collective section: nccl-tests' sizes, factor
4) with algorithm auto on a rail-optimized fabric of hgx_h100 servers (8 H100, NVLink 4, 8 x
400G NICs, non-blocking spines; the NVSwitches reduce, so NCCL's NVLS and NVLS-tree are
candidates).  Sizes run from 1 MiB to 1 GiB on 1 and 4 servers, to 256
MiB on 16 and 32 (to 64 MiB for all-to-all there: 256 ranks' all-to-all moves 255 blocks per
rank), since packets cost simulation time.  analysis/superpod_plot.py draws busbw against
size, one panel per operation and a line per server count, with the published rows as marks,
and tabulates every size with the tuner's pick.

Writes OUT/<op>-<servers>/ results folders, OUT/superpod.png and OUT/superpod.md.
"""
import argparse
from pathlib import Path

import study

OPS = ["allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "reduce"]


def max_bytes(op: str, servers: int) -> int:
    if servers <= 4:
        return 1 << 30
    return (64 << 20) if op == "alltoall" else (256 << 20)


def scenario(op: str, servers: int) -> dict:
    return {
        "name": f"superpod-{op}-{servers}",
        "description": f"{op} over {servers} DGX H100 servers, NCCL's tuner",
        "seed": 1,
        "server": "hgx_h100",
        "topology": {"kind": "rail_optimized", "servers": servers},
        "collective": {"op": op, "algorithm": "auto", "min_bytes": 1 << 20,
                       "max_bytes": max_bytes(op, servers), "factor": 4},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=study.default_out("superpod"))
    parser.add_argument("--servers", default="1,4,16,32")
    args = parser.parse_args()
    servers = [int(s) for s in args.servers.split(",")]
    runs = {f"{op}-{s}": scenario(op, s) for s in servers for op in OPS}
    folders = study.run_all(runs, args.out)
    study.analyse("superpod_plot.py", *folders, "--published",
                  study.ROOT / "validation" / "nccl-tests-h100.csv",
                  "--out", args.out / "superpod.png", "--table", args.out / "superpod.md")


if __name__ == "__main__":
    main()
