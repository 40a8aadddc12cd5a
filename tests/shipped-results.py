#!/usr/bin/python3
"""Every shipped scenario gives the results it gave when tests/golden/shipped-results.txt was
written: a refactoring of the runner or the model must leave them bit-identical.

Usage: shipped-results.py RUNNER SCENARIO_DIR GOLDEN [--update]

Runs each scenario of SCENARIO_DIR (but the distributed-* ones, which need mpirun) and records
the SHA-256 of every results file; summary.json without what the machine measured
(wall_seconds, peak_rss_kb_per_rank) and the version.  Without --update, a difference fails
naming the scenario and file.  After an intended change of results, run with --update and say
in the commit which results changed and why.
"""
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile

MACHINE_KEYS = ("wall_seconds", "peak_rss_kb_per_rank", "version")


def digest(path):
    data = path.read_bytes()
    if path.name == "summary.json":
        summary = json.loads(data)
        for key in MACHINE_KEYS:
            summary.pop(key, None)
        data = json.dumps(summary, sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def results(runner, scenario_dir):
    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        for scenario in sorted(pathlib.Path(scenario_dir).glob("*.json")):
            if scenario.name.startswith("distributed-"):
                continue
            out = pathlib.Path(scratch) / scenario.stem
            run = subprocess.run([runner, f"--scenario={scenario}", f"--out={out}"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"{scenario.name}: exit {run.returncode}: {run.stderr.strip()}")
            for f in sorted(out.iterdir()):
                lines.append(f"{scenario.stem} {f.name} {digest(f)}")
    return lines


def main():
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] != "--update"):
        sys.exit(__doc__)
    runner, scenario_dir, golden = sys.argv[1:4]
    now = results(runner, scenario_dir)
    golden = pathlib.Path(golden)
    if len(sys.argv) == 5:
        golden.write_text("\n".join(now) + "\n")
        print(f"wrote {golden}: {len(now)} files")
        return
    before = golden.read_text().splitlines()
    if now != before:
        gone = sorted(set(before) - set(now))
        new = sorted(set(now) - set(before))
        for line in gone:
            print("was:", line)
        for line in new:
            print("now:", line)
        sys.exit(f"{len(new)} results files differ from {golden}; if intended, rerun with "
                 "--update and say why in the commit")
    print(f"{len(now)} results files of the shipped scenarios unchanged")


if __name__ == "__main__":
    main()
