#!/bin/bash
# The training studies' driver and plots on real (small) results folders: scaling_plot via the
# scaling study at 16 GPUs on two fabrics, fabric_compare on the same folders, and
# message_size_plot on two sizes, workload_plot on a model-driven job; a folder without
# training results is an error.
# Usage: analysis-training.sh RUNNER PROJECT_DIR
set -euo pipefail
runner=$1
root=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
export AI_FABRIC_RUNNER=$runner
# Output goes to files before grep: grep -q would close the pipe under a still-printing script.
/usr/bin/python3 "$root/scenarios/studies/scaling.py" --out "$d/scaling" --sizes 16 \
    --fabrics rail-optimized,leaf-spine-4to1 > "$d/scaling.txt"
grep -q "rail-optimized *16" "$d/scaling.txt"
test -s "$d/scaling/scaling.png"
grep -q "^leaf-spine-4to1,16," "$d/scaling/scaling.csv"
/usr/bin/python3 "$root/analysis/fabric_compare.py" "$d/scaling/rail-optimized-16" \
    "$d/scaling/leaf-spine-4to1-16" --out "$d/compare.png" > "$d/compare.txt"
grep -q "rail-optimized (packed)" "$d/compare.txt"
test -s "$d/compare.png"
for bytes in 4096 65536; do
    printf '{"topology":{"kind":"fat_tree","k":4},"training":{"jobs":[{"ranks":4,"parameters":%d,"bucket_bytes":%d}]}}' \
        $((bytes / 4)) $bytes > "$d/s$bytes.json"
    "$runner" --scenario="$d/s$bytes.json" --out="$d/m$bytes" > /dev/null 2>&1
done
/usr/bin/python3 "$root/analysis/message_size_plot.py" "$d/m4096" "$d/m65536" \
    --out "$d/size.png" > "$d/size.txt"
grep -q "n_1/2" "$d/size.txt"
test -s "$d/size.png"
# Not a training folder: exit 1 and no figure.
"$runner" --scenario="$root/scenarios/link-down.json" --out="$d/plain" > /dev/null 2>&1
if /usr/bin/python3 "$root/analysis/scaling_plot.py" "$d/plain" --out "$d/x.png" 2> /dev/null; then
    exit 1
fi
test ! -e "$d/x.png"
# workload_plot on a model-driven job: the split of the iteration adds up to the iteration
# (compute, the exposed parts and the barrier wait are disjoint and cover it), and a folder
# without a model's job is an error that writes nothing.
"$runner" --scenario="$root/scenarios/training-moe-model.json" --out="$d/moe" > /dev/null 2>&1
/usr/bin/python3 "$root/analysis/workload_plot.py" "$d/moe" --out "$d/w.png" --table "$d/w.md" \
    > /dev/null
test -s "$d/w.png"
/usr/bin/python3 - "$d/w.md" <<'PY'
import sys
row = [c.strip() for c in open(sys.argv[1]).read().splitlines()[2].strip("|").split("|")]
iteration, parts = float(row[2]), sum(float(c) for c in row[7:])
assert row[0] == "training-moe-model" and abs(parts / iteration - 1) < 2e-3, row  # each figure to 4 digits
PY
if /usr/bin/python3 "$root/analysis/workload_plot.py" "$d/scaling/rail-optimized-16" \
    --out "$d/y.png" --table "$d/y.md" 2> /dev/null; then
    exit 1
fi
test ! -e "$d/y.png" && test ! -e "$d/y.md"
