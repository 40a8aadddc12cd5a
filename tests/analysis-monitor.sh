#!/bin/bash
# The monitor plot on a real results folder (the shipped DCQCN incast with a monitor section):
# the table and the PNG are written; a folder without monitor files is an error.
# Usage: analysis-monitor.sh RUNNER PROJECT_DIR
set -euo pipefail
runner=$1
root=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
/usr/bin/python3 -c "import json, sys; s = json.load(open(sys.argv[1])); s['monitor'] = {'interval': '20us'}; json.dump(s, open(sys.argv[2], 'w'))" \
    "$root/scenarios/incast-16to1-dcqcn.json" "$d/s.json"
"$runner" --scenario="$d/s.json" --out="$d/m" > /dev/null 2>&1
/usr/bin/python3 "$root/analysis/monitor_plot.py" "$d/m" --out "$d/m.png" > "$d/m.txt"
grep -q "l0->s0g0 class 3" "$d/m.txt" # the port toward the receiver queues the most
test -s "$d/m.png"
"$runner" --scenario="$root/scenarios/link-down.json" --out="$d/p" > /dev/null 2>&1
if /usr/bin/python3 "$root/analysis/monitor_plot.py" "$d/p" --out "$d/x.png" 2> /dev/null; then
    exit 1
fi
test ! -e "$d/x.png"
