#!/usr/bin/python3
"""Run scenarios at two fidelities (flow and packet unless told) and print, per scenario, the
ratio of what it measures (each collective's time, each iteration's duration, each message's
completion time, or an availability run's measured fabric states' iteration times and its
goodput) and both runs' wall time, as a Markdown table.  A message lost in either run (no
completion time) has no ratio.

usage: fidelity_table.py RUNNER SCENARIO.json ... [--fidelity=F] [--against=B] [--out=FILE]
       fidelity_table.py --compare B_STUDY F_STUDY [--fidelity=F] [--against=B] [--out=FILE]

RUNNER is build/scenarios/ai-fabric-run.  F (default flow) is the fidelity measured, B (default
packet) the one it is measured against: --fidelity=collective --against=flow gives the
steady-state collectives' distance from the step-by-step flow model.  A scenario F cannot
run (it exits 2) is listed with the reason.  --compare takes a study's results run twice (e.g.
AI_FABRIC_FIDELITY=flow scenarios/studies/placement.py --out DIR) and compares its runs folder by
folder.
"""
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def run(runner, scenario, fidelity, out):
    """None if the run succeeded, the refusal if it exited 2; anything else stops the table."""
    done = subprocess.run([runner, f"--scenario={scenario}", f"--fidelity={fidelity}",
                           f"--out={out}"], capture_output=True, text=True)
    if done.returncode == 0:
        return None
    if done.returncode == 2 and done.stderr.strip():
        return done.stderr.strip().splitlines()[-1]
    sys.exit(f"fidelity_table: {Path(scenario).stem} at {fidelity} level exited "
             f"{done.returncode}:\n{done.stderr}")


def figures(folder):
    """(what, values): the figures the scenario measures, in file order."""
    folder = Path(folder)
    if (folder / "collectives.csv").exists():
        with open(folder / "collectives.csv") as f:
            return "collective time", [float(r["time_us"]) for r in csv.DictReader(f)]
    if (folder / "iterations.csv").exists():
        with open(folder / "iterations.csv") as f:
            return "iteration", [float(r["duration_s"]) for r in csv.DictReader(f)]
    summary = json.loads((folder / "summary.json").read_text())
    if summary.get("mode") == "availability":
        states = summary["availability"]["fabric_states"]
        return "states, goodput", ([s["iteration_s"] for s in states.values()
                                    if s["source"] == "measured"] +
                                   [summary["availability"]["goodput"]])
    with open(folder / "flows.csv") as f:
        # A lost message (it never completed) has no completion time: None.
        return "each message", [float(r["fct_us"]) if r["fct_us"] else None
                                for r in csv.DictReader(f)]


def row(name, base_folder, tested_folder):
    """A table row comparing one scenario's two results folders (the baseline's first)."""
    what, base = figures(base_folder)
    _, tested = figures(tested_folder)
    ratios = [t / b for t, b in zip(tested, base) if t is not None and b]
    if len(tested) != len(base) or not ratios:
        sys.exit(f"fidelity_table: {name}: {len(tested)} figures in {tested_folder}, "
                 f"{len(base)} in {base_folder}")
    shown = (f"{min(ratios):.3f}" if max(ratios) - min(ratios) < 5e-4
             else f"{min(ratios):.3f} to {max(ratios):.3f}")
    wall = [json.loads((Path(d) / "summary.json").read_text())["wall_seconds"]
            for d in (base_folder, tested_folder)]
    speed = wall[0] / wall[1]
    return (f"| {name} | {what} | {shown} | {wall[0]:.2f} | {wall[1]:.2f} "
            f"| {speed:.{1 if speed < 10 else 0}f}x |")


def compare(base_study, tested_study, fidelities):
    """Rows for every run of a study found in both folders (run at the two fidelities)."""
    rows = []
    for folder in sorted(Path(base_study).iterdir()):
        other = Path(tested_study) / folder.name
        if not ((folder / "summary.json").is_file() and (other / "summary.json").is_file()):
            continue
        for d, fidelity in zip((folder, other), fidelities):
            ran = json.loads((d / "summary.json").read_text()).get("fidelity", "packet")
            if ran != fidelity:
                sys.exit(f"fidelity_table: {d} ran at {ran} level, not {fidelity}")
        rows.append(row(folder.name, folder, other))
    if not rows:
        sys.exit(f"fidelity_table: no run in both {base_study} and {tested_study}")
    return rows


def main(argv):
    out = None
    base, tested = "packet", "flow"
    runner, scenarios = None, []
    for arg in argv:
        if arg.startswith("--out="):
            out = Path(arg.split("=", 1)[1])
        elif arg.startswith("--fidelity="):
            tested = arg.split("=", 1)[1]
        elif arg.startswith("--against="):
            base = arg.split("=", 1)[1]
        elif runner is None:
            runner = arg
        else:
            scenarios.append(arg)
    if runner == "--compare":
        if len(scenarios) != 2:
            sys.exit(__doc__)
        lines = [f"| run | measures | {tested} / {base} | {base} wall s | {tested} wall s "
                 "| speed-up |", "|---|---|---|---|---|---|"] + compare(*scenarios,
                                                                       (base, tested))
        text = "\n".join(lines) + "\n"
        print(text)
        if out:
            out.write_text(text)
        return
    if runner is None or not scenarios:
        sys.exit(__doc__)
    lines = [f"| scenario | measures | {tested} / {base} | {base} wall s | {tested} wall s "
             "| speed-up |", "|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in scenarios:
            name = Path(scenario).stem
            folders = {f: Path(tmp) / f"{name}-{f}" for f in (base, tested)}
            refused = run(runner, scenario, tested, folders[tested])
            if refused:
                lines.append(f"| {name} | not at {tested} level: {refused} | | | | |")
                continue
            failed = run(runner, scenario, base, folders[base])
            if failed:
                sys.exit(f"fidelity_table: {name} at {base} level: {failed}")
            lines.append(row(name, folders[base], folders[tested]))
            print(lines[-1], file=sys.stderr, flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        out.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1:])
