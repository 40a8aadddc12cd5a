#!/bin/bash
# The goodput plot on a real availability results folder (the shipped 8-GPU scenario): the
# table, the PNG and the CSV are written; a folder without availability results is an error.
# Usage: analysis-goodput.sh RUNNER PROJECT_DIR
set -euo pipefail
runner=$1
root=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$runner" --scenario="$root/scenarios/availability-8gpu.json" --out="$d/a" > /dev/null 2>&1
/usr/bin/python3 "$root/analysis/goodput_plot.py" "$d/a" --out "$d/g.png" --csv "$d/g.csv" \
    > "$d/g.txt"
grep -q "daly" "$d/g.txt"
test -s "$d/g.png"
test "$(wc -l < "$d/g.csv")" -eq 7 # header, Daly's interval and the 5 swept
"$runner" --scenario="$root/scenarios/link-down.json" --out="$d/p" > /dev/null 2>&1
if /usr/bin/python3 "$root/analysis/goodput_plot.py" "$d/p" --out "$d/x.png" 2> /dev/null; then
    exit 1
fi
test ! -e "$d/x.png"
