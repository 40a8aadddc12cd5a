#!/usr/bin/python3
"""A hostile user, seeded: mutated scenario files and command lines against the programs.

    mutation-probe.py RUNNER COLLBENCH SCENARIO_DIR [--seed=N] [--cases=N] [--cli=N]

Every shipped scenario must first run as it is (exit 0).  Then each case is one run of
ai-fabric-run (a shipped scenario with one mutation: a value of
another type, zero, negative, huge, without or with a bad unit, with spaces, unicode or
control characters; a key removed, added or given twice; the file truncated, nested too deep or
not UTF-8) or of either program with hostile arguments.  Every outcome must be one of:
  - exit 0 with a whole results folder (summary.json readable, the marker listing every file);
  - exit 2 with one line on stderr, "<program>: error: ...", and no folder;
  - a long valid run stopped by the probe's timeout (SIGTERM) after it began simulating,
    leaving no folder.
Anything else (a crash, another exit code, a hang before the simulation, a second stderr line,
a staging folder left behind, a file outside the results folder touched) fails the probe.
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile

TIMEOUT_S = 8
SKIP = {"distributed-256gpu.json"}  # 19 s unmutated: a benchmark, not a probe target

HOSTILE_VALUES = [
    "x", "", " ", 0, -1, 1.5, -0.5, True, False, None, [], {}, [1, 2], {"a": 1},
    1e308, -1e308, 18446744073709551615, 18446744073709551616, 9223372036854775807,
    "10 Gbps", " 2ms ", "32 MiB", "400", "400G", "1e999s", "1e30ms", "-5us", "0s", "0bps",
    "NaN", "inf", "µs", "４００Gbps", "a\"b,c", "line\nbreak", "nul\u0000byte", "é" * 3,
    "x" * 5000, "ns3::Object", "ns3::StragglerRandomVariable[Fraction= 0.1|Factor=2]",
]


def leaves(value, path=()):
    """Every path into a JSON value (objects and arrays included)."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))


def set_at(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def delete_at(doc, path):
    node = doc
    for p in path[:-1]:
        node = node[p]
    del node[path[-1]]


def mutate(rng, text):
    """One mutation of a scenario's text: (description, bytes)."""
    doc = json.loads(text)
    paths = [p for p in leaves(doc) if p]
    kind = rng.choice(["value"] * 6 + ["delete", "add", "duplicate", "truncate", "deep",
                                        "bytes"])
    if kind == "value":
        path = rng.choice(paths)
        value = rng.choice(HOSTILE_VALUES)
        set_at(doc, path, value)
        return f"{'.'.join(map(str, path))} = {json.dumps(value)[:60]}", json.dumps(doc).encode()
    if kind == "delete":
        path = rng.choice(paths)
        delete_at(doc, path)
        return f"delete {'.'.join(map(str, path))}", json.dumps(doc).encode()
    if kind == "add":
        objects = [p for p in leaves(doc) if isinstance(get(doc, p), dict)]
        path = rng.choice(objects)
        get(doc, path)["colour"] = 1
        return f"add {'.'.join(map(str, path))}.colour", json.dumps(doc).encode()
    if kind == "duplicate":
        dumped = json.dumps(doc)
        key = rng.choice([k for k in doc])
        return f"duplicate {key}", (dumped[:-1] + f', "{key}": {json.dumps(doc[key])}}}').encode()
    if kind == "truncate":
        cut = rng.randrange(len(text))
        return f"truncate at {cut}", text[:cut].encode()
    if kind == "deep":
        depth = rng.choice([40, 1000, 100000])
        return f"nested {depth} deep", ("[" * depth + "]" * depth).encode()
    at = rng.randrange(len(text))
    return f"invalid UTF-8 at {at}", text[:at].encode() + b"\xff\xfe" + text[at:].encode()


def get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def cli_case(rng, runner, collbench, scenario):
    """Hostile arguments for either program."""
    program = rng.choice([runner, collbench])
    pool = [
        "--scenario=/nonexistent.json", "--scenario=/", "--scenario=", "--out=", "--out=.",
        "--out=..", "--out=/", "--out=./", "--pcap=1", "--ranks-by=pod",
        "--ns3::FabricSwitch::ForwardingLatency=1", "--ns3::FabricSwitch::ForwardingLatency=",
        "--ns3::FabricSwitch::ForwardingLatency=1us ", "--ns3::FabricSwitch::Nope=1",
        "--ns3::Node::Id=1", "--ns3::RdmaNic::CongestionControl=ns3::Node",
        "--ns3::FabricChannel::DataRate=0bps", "--ns3::TrainingJob::Parameters=-1",
        "--ns3::TrainingJob::Slowdown=ns3::StragglerRandomVariable[Fraction=0.1,Factor=2]",
        "--minbytes=99999999999999G", "--maxbytes=-1", "--ranks=0", "--iters=0",
        "--algo=\udcff\udcfe", "--op=all reduce", "--topology=fat_tree:k=", "--topology=:",
        "--topology=fat_tree:k=4,nic_rate=10 Gbps", "-x", "--", "--=", "--op",
        "--scenario=" + scenario, "--cc=dcqcn", "--channels=4294967296", "--factor=1",
    ]
    args = rng.sample(pool, rng.randint(1, 3))
    return program, args


class Probe:
    def __init__(self, runner, collbench, scenario_dir):
        self.runner = runner
        self.collbench = collbench
        self.scenario_dir = scenario_dir
        self.failures = []
        self.counts = {"ok": 0, "refused": 0, "stopped": 0}

    def judge(self, name, argv, work, out, code, err):
        program = os.path.basename(os.fsdecode(argv[0]))
        lines = [l for l in err.splitlines() if l]
        leftovers = [f for f in os.listdir(work) if f not in ("out", "s.json")]
        problem = None
        if leftovers:
            problem = f"left behind: {leftovers}"
        elif code == 0:
            marker = os.path.join(out, ".ai-fabric-results")
            try:
                json.load(open(os.path.join(out, "summary.json")))
                listed = {l for l in open(marker).read().splitlines() if not l.startswith("#")}
                if listed != set(os.listdir(out)) - {".ai-fabric-results"}:
                    problem = "marker does not list the folder's files"
            except (OSError, ValueError) as e:
                problem = f"exit 0 without a whole folder: {e}"
            self.counts["ok"] += 1
        elif code == 2:
            if len(lines) != 1 or not lines[0].startswith(program + ": error: "):
                problem = f"exit 2 without one error line: {lines[:3]}"
            elif os.path.exists(out):
                problem = "exit 2 left a results folder"
            self.counts["refused"] += 1
        else:
            problem = f"exit {code}: {lines[-3:]}"
        if problem:
            self.failures.append(f"{name}: {problem}\n    {argv[1:]}")
        shutil.rmtree(out, ignore_errors=True)

    def run(self, name, argv, work):
        """Run; past the timeout, SIGTERM and judge what it leaves."""
        out = os.path.join(work, "out")
        argv = [os.fsencode(a) for a in argv]  # "\udcff" is the byte 0xff: invalid UTF-8
        p = subprocess.Popen(argv + [os.fsencode(f"--out={out}")], cwd=work, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(timeout=TIMEOUT_S)
            self.judge(name, argv, work, out, p.returncode, err.decode(errors="replace"))
            return
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate()
        err = err.decode(errors="replace")
        leftovers = [f for f in os.listdir(work) if f != "s.json"]
        if "scenario '" not in err and "measuring" not in err:
            self.failures.append(f"{name}: hung before simulating\n    {argv[1:]}")
        elif p.returncode != -signal.SIGTERM or leftovers:
            self.failures.append(f"{name}: after SIGTERM: exit {p.returncode}, left {leftovers}")
        self.counts["stopped"] += 1
        shutil.rmtree(out, ignore_errors=True)


def main():
    runner, collbench, scenario_dir = map(os.path.abspath, sys.argv[1:4])
    options = dict(a[2:].split("=", 1) for a in sys.argv[4:])
    rng = random.Random(int(options.get("seed", 1)))
    cases, cli = int(options.get("cases", 200)), int(options.get("cli", 100))
    scenarios = sorted(f for f in os.listdir(scenario_dir) if f.endswith(".json") and f not in SKIP)
    probe = Probe(runner, collbench, scenario_dir)
    with tempfile.TemporaryDirectory(prefix="ai-fabric-probe-") as root:
        # Unmutated, every shipped scenario runs to its end.
        for name in scenarios:
            work = os.path.join(root, "shipped")
            os.mkdir(work)
            p = subprocess.run([runner, f"--scenario={os.path.join(scenario_dir, name)}",
                                f"--out={os.path.join(work, 'out')}"], capture_output=True)
            if p.returncode != 0:
                probe.failures.append(f"shipped {name}: exit {p.returncode}: "
                                      f"{p.stderr.decode(errors='replace').splitlines()[-1:]}")
            shutil.rmtree(work)
        for i in range(cases):
            name = rng.choice(scenarios)
            text = open(os.path.join(scenario_dir, name), encoding="utf-8").read()
            what, data = mutate(rng, text)
            work = os.path.join(root, f"case{i}")
            os.mkdir(work)
            with open(os.path.join(work, "s.json"), "wb") as f:
                f.write(data)
            probe.run(f"case {i} {name}: {what}", [runner, "--scenario=s.json"], work)
            shutil.rmtree(work)
        for i in range(cli):
            scenario = os.path.join(scenario_dir, "default.json")
            program, args = cli_case(rng, runner, collbench, scenario)
            work = os.path.join(root, f"cli{i}")
            os.mkdir(work)
            probe.run(f"cli {i}", [program] + args, work)
            shutil.rmtree(work)
    print(f"{cases} mutated scenarios and {cli} command lines: {probe.counts['ok']} ran, "
          f"{probe.counts['refused']} refused, {probe.counts['stopped']} long runs stopped; "
          f"{len(probe.failures)} defects")
    for f in probe.failures[:20]:
        print(f)
    if len(probe.failures) > 20:
        print(f"... and {len(probe.failures) - 20} more")
    return 1 if probe.failures else 0


if __name__ == "__main__":
    sys.exit(main())
