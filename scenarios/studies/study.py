"""What the study scripts share: write scenario files, run ai-fabric-run on them two at a time,
and hand the results folders to an analysis script.

The runner is build/scenarios/ai-fabric-run, or $AI_FABRIC_RUNNER, at the scenarios' own
fidelity or at $AI_FABRIC_FIDELITY (packet, flow or collective: its --fidelity); results go under
results/<study>/, or $AI_FABRIC_STUDY_OUT, or --out.  A study writes its scenarios to OUT/scenarios/NAME.json and each run's results to
OUT/NAME/ (written whole by the runner).  A folder that already holds a summary.json for the
same scenario text is kept, so an interrupted study resumes where it stopped.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(os.environ.get("AI_FABRIC_RUNNER", ROOT / "build" / "scenarios" / "ai-fabric-run"))
FIDELITY = os.environ.get("AI_FABRIC_FIDELITY", "")
ANALYSIS = ROOT / "analysis"


def run_all(scenarios: dict, out: Path, parallel: int = 2) -> list:
    """Run {name: scenario dict}; returns the results folders in the given order."""
    if not RUNNER.is_file():
        sys.exit(f"study: {RUNNER} not found: build first (scripts/build)")
    (out / "scenarios").mkdir(parents=True, exist_ok=True)
    todo = []
    for name, doc in scenarios.items():
        path = out / "scenarios" / f"{name}.json"
        path.write_text(json.dumps(doc, indent=2) + "\n")
        summary = out / name / "summary.json"
        kept = json.loads(summary.read_text()) if summary.is_file() else {}
        # The runner records --fidelity in the scenario it ran.
        ran = {**doc, "fidelity": FIDELITY} if FIDELITY else doc
        if (kept.get("scenario") == ran and
                kept.get("fidelity") == (FIDELITY or doc.get("fidelity", "packet"))):
            print(f"{name}: kept (already run)", flush=True)
            continue
        todo.append((name, path))

    def run(item):
        name, path = item
        fidelity = [f"--fidelity={FIDELITY}"] if FIDELITY else []
        done = subprocess.run([str(RUNNER), f"--scenario={path}", f"--out={out / name}", *fidelity],
                              capture_output=True, text=True)
        return name, done

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for name, done in pool.map(run, todo):
            wall = ""
            if done.returncode == 0:
                wall = json.loads((out / name / "summary.json").read_text())["wall_seconds"]
                wall = f" ({wall:.1f} s wall)"
            print(f"{name}: exit {done.returncode}{wall}", flush=True)
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                failed.append(name)
    if failed:
        sys.exit(f"study: {len(failed)} run(s) failed: {', '.join(failed)}")
    return [out / name for name in scenarios]


def analyse(script: str, *args) -> None:
    """Run analysis/SCRIPT with ARGS (strings or paths); exit if it fails."""
    done = subprocess.run(["/usr/bin/python3", str(ANALYSIS / script), *map(str, args)])
    if done.returncode != 0:
        sys.exit(f"study: {script} failed with exit {done.returncode}")


def default_out(study: str) -> Path:
    return Path(os.environ.get("AI_FABRIC_STUDY_OUT", ROOT / "results" / study))
