#!/usr/bin/python3
"""Run ai-fabric-collbench on the simulated counterpart of every cluster in
nccl-tests-h100.csv (S servers x 8 GPUs, rail-optimized, 400G NICs, H100 NVLink, auto: NCCL's
tuner; the NVSwitches reduce (NVLS) where NCCL ran with its defaults, not where it ran without
NVLS) and print each published busbw beside the simulated one, with the algorithm the tuner
picked and the busbw NCCL's own cost model predicts for that pick (collbench's
nccl_model_us).  Rows NCCL ran with an algorithm this model has (ring, tree, NVLS, NVLS-tree)
must land within TOLERANCE when bandwidth-bound (>= 64 MiB); the rest are reported with their
distance.  Then DeepEP's published dispatch bandwidths (deepep-h800.csv) beside collbench's
deepep algorithm on as many H800 servers (hgx_h800), each in DeepEP's own measure; every row must
land within TOLERANCE.  Exit 1 if a row that must hold does not.

usage: validation/validate.py [--max-bytes=N] [--out=FILE.md]
  --max-bytes  on more than 2 servers, skip larger published sizes (default 1 GiB: 8 GiB on 4
               servers takes minutes; 1 and 2 servers run every size)
"""
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLLBENCH = ROOT / "build" / "scenarios" / "ai-fabric-collbench"
TABLE = Path(__file__).resolve().parent / "nccl-tests-h100.csv"
DEEPEP = Path(__file__).resolve().parent / "deepep-h800.csv"
TOLERANCE = 0.10
BANDWIDTH_BOUND = 64 << 20
MODELLED = ("ring", "tree", "nvls", "nvls-tree")


def published(table=TABLE):
    with open(table) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def bus_factor(op, ranks):
    """busbw / algbw (nccl-tests' PERFORMANCE.md)."""
    return 2 * (ranks - 1) / ranks if op == "allreduce" else (ranks - 1) / ranks


def collbench(args):
    """collectives.csv's rows of one collbench run with \p args."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r"
        cmd = [str(COLLBENCH)] + args + [f"--out={out}"]
        print("$ " + " ".join(cmd[:-1]), file=sys.stderr, flush=True)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"validate: collbench exited {done.returncode}:\n{done.stderr}")
        with open(out / "collectives.csv") as f:
            rows = list(csv.DictReader(f))
    failed = [r["bytes"] for r in rows if r["status"] != "complete"]
    if failed:
        sys.exit(f"validate: {' '.join(args)}: runs of {', '.join(failed)} B failed")
    return rows


def deepep():
    """DeepEP's rows: (markdown lines, rows outside TOLERANCE).  Each published bandwidth is
    turned into a time (tokens x token bytes x hits / GB/s, hits the servers or ranks a token
    reaches, as DeepEP counts) and set beside the simulated dispatch of the same buffer."""
    lines = ["| source | EP | servers | published GB/s (DeepEP's measure) | published us "
             "| simulated us | simulated GB/s | sim / pub GB/s | holds |",
             "|---|---|---|---|---|---|---|---|---|"]
    failed = 0
    for r in published(DEEPEP):
        servers, tokens, token = int(r["servers"]), int(r["tokens"]), int(r["token_bytes"])
        counted = tokens * token * float(r["hits"])
        pub_us = counted / float(r["published_GBps"]) / 1e3
        size = str(tokens * token * 8)  # the send buffer: each token once per expert (top 8)
        [row] = collbench(["--server=hgx_h800",
                           f"--topology=rail_optimized:servers={servers},gpus_per_server=8",
                           "--op=alltoall", "--algo=deepep", "-b", size, "-e", size])
        sim_us = float(row["time_us"])
        ratio = pub_us / sim_us
        holds = abs(ratio - 1) <= TOLERANCE
        failed += not holds
        lines.append(f"| {r['source']} | {r['ep']} | {servers} | {r['published_GBps']} "
                     f"({r['metric']}) | {pub_us:.0f} | {sim_us:.0f} | "
                     f"{counted / sim_us / 1e3:.1f} | {ratio:.2f} | {'yes' if holds else 'NO'} |")
    return lines, failed


def simulate(servers, op, nvls, sizes):
    """{bytes: (busbw, algorithm, NCCL's model's busbw)} from one collbench sweep of op over
    sizes (powers of two), with the NVSwitches reducing (NVLS) or not, as NCCL ran."""
    lo, hi = min(sizes), max(sizes)
    rows = collbench([f"--topology=rail_optimized:servers={servers},gpus_per_server=8,"
                      f"nvls={'true' if nvls else 'false'}",
                      f"--op={op}", "-b", str(lo), "-e", str(hi), "-f", "2"])
    factor = bus_factor(op, 8 * servers)
    # NCCL's model predicts auto's ring and tree picks, not point-to-point (all-to-all).
    return {int(r["bytes"]): (float(r["busbw_GBps"]), r["algorithm"],
                              int(r["bytes"]) / float(r["nccl_model_us"]) / 1e3 * factor
                              if r["nccl_model_us"] else None)
            for r in rows}


def main(argv):
    max_bytes = 1 << 30
    out = None
    for arg in argv:
        if arg.startswith("--max-bytes="):
            max_bytes = int(arg.split("=", 1)[1])
        elif arg.startswith("--out="):
            out = Path(arg.split("=", 1)[1])
        else:
            sys.exit(__doc__)
    rows = [r for r in published() if int(r["servers"]) <= 2 or int(r["bytes"]) <= max_bytes]
    # NVLS as the cluster had it: on with NCCL's defaults, off where NCCL ran without it.
    key_of = lambda r: (int(r["servers"]), r["op"], r["nccl"] == "default")
    results = {}
    for key in sorted({key_of(r) for r in rows}):
        sizes = [int(r["bytes"]) for r in rows if key_of(r) == key]
        results[key] = simulate(*key, sizes)
    lines = ["| source | servers | op | bytes | published GB/s | NCCL ran | simulated GB/s "
             "| tuner's pick | NCCL's model GB/s | sim / pub | model / pub | holds |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    failed = 0
    for r in rows:
        servers, n, pub = int(r["servers"]), int(r["bytes"]), float(r["busbw_GBps"])
        sim, pick, model = results[key_of(r)][n]
        ratio = sim / pub
        modelled = r["nccl_pick"].split("/")[0] in MODELLED
        if not modelled:
            verdict = "not modelled (" + r["nccl_pick"] + ")"
        elif n < BANDWIDTH_BOUND:
            verdict = "latency-bound: reported"
        elif abs(ratio - 1) <= TOLERANCE:
            verdict = "yes"
        else:
            verdict = "NO"
            failed += 1
        shown = (f"{model:.1f} | {ratio:.2f} | {model / pub:.2f}" if model is not None
                 else f"- | {ratio:.2f} | -")
        lines.append(f"| {r['source']} | {servers} | {r['op']} | {n} | {pub:g} "
                     f"| {r['nccl']}: {r['nccl_pick']} | {sim:.1f} | {pick} | {shown} "
                     f"| {verdict} |")
    moe, moe_failed = deepep()
    failed += moe_failed
    text = "\n".join(lines) + "\n\nDeepEP's MoE dispatch (deepep on hgx_h800):\n\n" + \
        "\n".join(moe) + "\n"
    print(text)
    if out:
        out.write_text("<!-- written by validation/validate.py (tolerance and reasons: the module "
                       "chapter, Validation) -->\n" + text)
    skipped = len(published()) - len(rows)
    if skipped:
        print(f"({skipped} rows above --max-bytes={max_bytes} not run)")
    if failed:
        sys.exit(f"validate: {failed} row(s) outside {TOLERANCE:.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
