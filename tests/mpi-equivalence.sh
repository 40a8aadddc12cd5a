#!/bin/bash
# Distributed runs on ns-3's MPI engine (scripts/ns3-in-tree runs this with the ai-fabric-run
# it built against ns-3 from source):
#  - the k=4 fat-tree scenario with a ring all-reduce beside RDMA messages, under mpirun -np 1
#    and -np 2 --ranks-by=pod, gives byte-identical collectives.csv, links.csv and flows.csv, and
#    so does the single-process build on Debian's ns-3 when given as a third argument;
#  - -np 2 with a map of 2 ranks gives the same three files;
#  - the same with "launch": "barrier" and a 2 us barrier_latency, likewise;
#  - the barrier sweep with a monitor that MaxRows truncates: the same series;
#  - the permutation alone as MessageSources (transport "messages"), with a monitor and PCAPs
#    of every port, likewise;
#  - the same with link events (inside each rank and on a cut link) and routing convergence;
#  - the same with injected failures (a flap, a switch, lane loss, a link inside the other rank);
#  - the same with bit errors on cut links (frames crossing either way) and inside rank 0;
#  - the same with packet spraying and selective repeat (selective NAKs crossing the cut), with
#    adaptive routing and flowlets, and with trimming (trimmed frames and NAKs crossing it);
#  - the same under HPCC (telemetry stamped on either rank, echoed across the cut) and DCTCP
#    (ECN echoes crossing it), and on two planes with entropy recycling;
#  - a training job (scenarios/distributed-training.json) under -np 1 and -np 2 gives
#    byte-identical iterations.csv, ranks.csv, links.csv and flows.csv, as does one process;
#  - the availability model (scenarios/availability-8gpu.json with a barrier the ranks can keep
#    and bit errors among its failures, on two spines): its four fabric states measured one run
#    after another split over the ranks, the dead, slow and bit-error links cut links, give the
#    same iteration times, availability.csv and failures.csv as one process;
#  - bad partition input and barriers faster than the lookahead exit 2 on every rank with one
#    message per rank and no results.
# Usage: mpi-equivalence.sh RUNNER PROJECT_DIR [SINGLE_PROCESS_RUNNER]
set -euo pipefail
runner=$1
root=$2
single=${3:-}
# Open MPI refuses root and more processes than cores unless told (CI runs as root on 2 cores).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
scenario=$root/scenarios/distributed-k4.json

# Run scenario $2 at -np 1 and -np 2 by pod (into $d/${1}1 and $d/${1}2, the logs beside) and,
# given one, in one process ($d/${1}single): files $3... are byte-identical in all.
agree() {
  local name=$1 scen=$2
  shift 2
  mpirun -np 1 "$runner" --scenario="$scen" --out="$d/${name}1" --ranks-by=pod \
      > /dev/null 2> "$d/${name}1.log"
  mpirun -np 2 "$runner" --scenario="$scen" --out="$d/${name}2" --ranks-by=pod \
      > /dev/null 2> "$d/${name}2.log"
  for f in "$@"; do
    cmp "$d/${name}1/$f" "$d/${name}2/$f"
  done
  if [ -n "$single" ]; then
    "$single" --scenario="$scen" --out="$d/${name}single" > /dev/null 2>&1
    for f in "$@"; do
      cmp "$d/${name}1/$f" "$d/${name}single/$f"
    done
  fi
}

agree np "$scenario" collectives.csv links.csv flows.csv
# The figures the processes sum or take the latest of (each counted by the endpoints and ranks,
# not by trace sinks) are the one process's.
/usr/bin/python3 - "$d/np1/summary.json" "$d/np2/summary.json" \
    ${single:+"$d/npsingle/summary.json"} <<'EOF'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
for key in ("frames_delivered", "payload_bytes_delivered", "last_delivery_seconds"):
    assert len({r[key] for r in runs}) == 1, (key, [r[key] for r in runs])
steps = [r["collective"]["steps"] for r in runs]
assert len(set(steps)) == 1 and steps[0] > 0, steps
EOF
grep -q "rank 1 of 2" "$d/np2.log"
test "$(wc -l < "$d/np2/collectives.csv")" -eq 11 # header + 5 sizes x 2 iterations
test "$(grep -c ',1$' "$d/np2/flows.csv")" -eq 16 # every message complete
grep -q '"mpi_ranks": 2' "$d/np2/summary.json"

# The same collectives launched behind a barrier whose notices take 2 us: each run starts when
# every rank's notice that it finished the last has reached every process.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['collective'].update(launch='barrier', barrier_latency='2us'); \
json.dump(s, open('$d/barrier.json','w'))"
agree b "$d/barrier.json" collectives.csv links.csv flows.csv
test "$(wc -l < "$d/b2/collectives.csv")" -eq 11
# With a monitor whose MaxRows stops it (counted over every rank's rows): each rank samples
# its own ports and queue pairs, rank 0 joins them and cuts at the same sample.
/usr/bin/python3 -c "import json; s=json.load(open('$d/barrier.json')); \
s['monitor'] = {'interval': '5us', 'ports': 'all', 'max_rows': 3000}; \
json.dump(s, open('$d/monitor.json','w'))"
agree mon "$d/monitor.json" monitor-ports.csv monitor-qps.csv collectives.csv
grep -q '"truncated": true' "$d/mon2/summary.json"

# The same permutation alone as messages (MessageSources, no ACKs; a sweep takes rdma): the
# sender's process starts a message, the receiver's counts its bytes, flows.csv joins them;
# the monitor's series (every port) too, and every port's PCAP.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); del s['collective'], s['rdma']; \
s['traffic']['transport'] = 'messages'; s['monitor'] = {'interval': '2us', 'ports': 'all'}; \
s['pcap'] = {'nodes': 'all', 'snap_length': 128}; json.dump(s, open('$d/messages.json','w'))"
agree m "$d/messages.json" links.csv flows.csv monitor-ports.csv
test "$(grep -c ',1$' "$d/m2/flows.csv")" -eq 16
# Every port's PCAP (rank 1's gathered by rank 0), byte-identical.
test "$(ls "$d/m2" | grep -c '^pcap-.*\.pcap$')" -eq 96 # 48 links x 2 ends
for f in $(cd "$d/m1" && ls pcap-*.pcap); do
  cmp "$d/m1/$f" "$d/m2/$f"
  if [ -n "$single" ]; then cmp "$d/msingle/$f" "$d/m2/$f"; fi
done

# Link events: a link inside rank 0 (down and up), two cut links (down for good, one while the
# all-reduce crosses it), a link inside rank 1 (down and up) under 20 us routing convergence: each rank changes its half of a cut
# link, and routes around the other rank's links, at the same instants.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['routing'] = {'convergence_delay': '20us'}; \
s['link_events'] = [{'link': 'p0e0-p0a1', 'at': '60us', 'state': 'down'}, \
  {'link': 'p0e0-p0a1', 'at': '400us', 'state': 'up'}, \
  {'link': 'p2a0-c0', 'at': '100us', 'state': 'down'}, \
  {'link': 'p1a0-c1', 'at': '700us', 'state': 'down'}, \
  {'link': 'p3e0-p3a1', 'at': '150us', 'state': 'down'}, \
  {'link': 'p3e0-p3a1', 'at': '250us', 'state': 'up'}]; \
json.dump(s, open('$d/events.json','w'))"
agree e "$d/events.json" collectives.csv links.csv flows.csv
test "$(grep -c '^36,p2a0-c0,.*,1,[0-9.]*$' "$d/e2/links.csv")" -eq 2 # down once, both ends

# Failures: a cut link flaps, a core switch with links to both ranks fails for 200 us, a cut
# link loses half its lanes, a link inside rank 1 fails for 100 us: every rank runs every
# failure process (the same draws), changes what it holds and routes around the rest, and
# failures.csv sums each outage's lost frames over the ranks.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['routing'] = {'convergence_delay': '20us'}; \
s['failures'] = {'inject': [ \
  {'component': 'p1a0-c1', 'mode': 'flap', 'at': '300us', 'flap_count': 2, \
   'flap_down_time': '20us', 'flap_up_time': '30us'}, \
  {'component': 'c2', 'kind': 'switch', 'mode': 'hard', 'at': '500us', 'duration': '200us'}, \
  {'component': 'p3a0-c0', 'mode': 'lane_loss', 'at': '100us', 'rate_fraction': 0.5}, \
  {'component': 'p2e1-p2a0', 'mode': 'hard', 'at': '900us', 'duration': '100us'}]}; \
json.dump(s, open('$d/failures.json','w'))"
agree f "$d/failures.json" collectives.csv links.csv flows.csv failures.csv
test "$(wc -l < "$d/f2/failures.csv")" -eq 6 # header + 5 outages (2 for the flap)
awk -F, '$2 == "p2e1-p2a0" && $7 > 0 { found = 1 } END { exit !found }' "$d/f2/failures.csv"

# Bit errors on two cut links (their data crossing from rank 0 to rank 1 and back) and on a
# link inside rank 0: each direction of a link draws from its own stream, in the process that
# sends, and a corrupted frame crosses ranks marked so.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['failures'] = {'inject': [ \
  {'component': 'p2a0-c0', 'mode': 'bit_errors', 'at': '0us', 'bit_error_rate': 2e-6}, \
  {'component': 'p1a0-c1', 'mode': 'bit_errors', 'at': '0us', 'bit_error_rate': 2e-6}, \
  {'component': 'p0e0-p0a1', 'mode': 'bit_errors', 'at': '50us', 'bit_error_rate': 2e-6}]}; \
json.dump(s, open('$d/bit-errors.json','w'))"
agree ber "$d/bit-errors.json" collectives.csv links.csv flows.csv failures.csv
# FCS drops where c0 (rank 0) sends to p2a0 (rank 1) and c1 (rank 1) to p1a0 (rank 0).
awk -F, '(($2 == "p2a0-c0" && $3 == "p2a0") || ($2 == "p1a0-c1" && $3 == "p1a0")) && $17 > 0 \
         { n++ } END { exit !(n == 2) }' "$d/ber2/links.csv"

# Packet spraying with selective repeat: frames reordered on paths through either rank, and
# selective NAKs (8-byte AETHs) crossing the cut.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['switch'] = {'load_balancing': 'PacketSpray'}; \
s['rdma']['retransmission_mode'] = 'SelectiveRepeat'; json.dump(s, open('$d/spray.json','w'))"
agree sr "$d/spray.json" collectives.csv links.csv flows.csv
# Reordered (selective NAKs sent), and nothing resent.
grep -q '"naks_sent": [1-9]' "$d/sr2/summary.json"
grep -q '"payload_retransmitted_bytes": 0,' "$d/sr2/summary.json"
# Adaptive routing and flowlets: switch state (queues, the flowlet table) of one rank's switches.
for lb in Adaptive Flowlet; do
  /usr/bin/python3 -c "import json; s=json.load(open('$d/spray.json')); \
s['switch']['load_balancing'] = '$lb'; json.dump(s, open('$d/$lb.json','w'))"
  agree "$lb" "$d/$lb.json" collectives.csv links.csv flows.csv
done
# Trimming: a lossy 256 KiB buffer cuts sprayed frames to their headers (DSCP remarked) on
# either rank, and trimmed NAKs cross the cut; nothing is dropped.
/usr/bin/python3 -c "import json; s=json.load(open('$d/spray.json')); \
s['switch'].update({'pfc_enabled': False, 'trimming': True, 'buffer_size': '256KiB'}); \
json.dump(s, open('$d/trim.json','w'))"
agree trim "$d/trim.json" collectives.csv links.csv flows.csv
grep -q '"frames_trimmed": [1-9]' "$d/trim2/summary.json"
grep -q '"frames_dropped": 0,' "$d/trim2/summary.json"
# HPCC: data frames collect telemetry records from switches on either rank, and ACKs echo
# them across the cut (the 42-byte header in the frames' bytes).
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['rdma']['congestion_control'] = 'hpcc'; json.dump(s, open('$d/hpcc.json','w'))"
agree hpcc "$d/hpcc.json" collectives.csv links.csv flows.csv
grep -q '"cnps_sent": 0,' "$d/hpcc2/summary.json" # HPCC's responders send none
# DCTCP: ECN echoes (the BTH's BECN bit) cross the cut in ACKs, instead of CNPs.
/usr/bin/python3 -c "import json; s=json.load(open('$scenario')); \
s['rdma']['congestion_control'] = 'dctcp'; \
s['port'] = {'ecn_kmin_per_25g': '20KB', 'ecn_kmax_per_25g': '20KB', 'ecn_pmax': 1.0}; \
json.dump(s, open('$d/dctcp.json','w'))"
agree dctcp "$d/dctcp.json" collectives.csv links.csv flows.csv
grep -q '"cnps_sent": 0,' "$d/dctcp2/summary.json"
awk -F, 'NR > 1 && $19 > 0 { found = 1 } END { exit !found }' "$d/dctcp2/links.csv" # marked
# Two planes and entropy recycling: each frame's UDP source port drawn or recycled by its
# sender and echoed back in its ACK across the cut, each host's two plane ports served in turn.
/usr/bin/python3 -c "import json; s=json.load(open('$d/spray.json')); \
s['switch'] = {}; s['topology']['planes'] = 2; s['rdma']['entropy'] = 'Recycle'; \
json.dump(s, open('$d/planes.json','w'))"
agree planes "$d/planes.json" collectives.csv links.csv flows.csv
# Plane 1's links carried frames (column 10: tx_bytes).
awk -F, 'NR > 1 && $2 ~ /_p1/ && $10 > 0 { found = 1 } END { exit !found }' "$d/planes2/links.csv"

# A training job (PP 2 x DP 8; stage 1 on the other rank): its pipeline transfers and its
# barrier's notices cross the ranks, and every process records the same iterations.
training=$root/scenarios/distributed-training.json
agree t "$training" iterations.csv ranks.csv links.csv flows.csv
test "$(wc -l < "$d/t2/iterations.csv")" -eq 3 # header + 2 iterations
grep -q '"timeline": "not written: a distributed run"' "$d/t2/summary.json"

# Availability: every rank takes part in the measuring runs, one after another in one process
# (MPI's interface readied again between them).  Two spines (oversubscription 2), so sp0 is
# rank 0's and sp1 rank 1's: the dead and rate-reduced link l1-sp0 and the bit-error link l0-sp1
# are cut links, each carrying the job's data sent from both ranks' halves.  Rank 0 runs the
# horizon alone.  The rate and the bit errors slow the job; the dead link only its first
# iteration (the measure leaves that out): the rerouted flows still fit the other spine.
/usr/bin/python3 -c "import json; s=json.load(open('$root/scenarios/availability-8gpu.json')); \
s['topology']['oversubscription'] = 2; s['training']['jobs'][0]['barrier_latency']='2us'; \
s['failures']['components'].append({'kind': 'link', 'mode': 'bit_errors', 'mtbf': '300h', 'mttr': '1h'}); \
s['availability'].update(bit_error_rate=1e-6, \
    links={'link_down': 'l1-sp0', 'reduced_rate': 'l1-sp0', 'bit_errors': 'l0-sp1'}); \
json.dump(s, open('$d/availability.json','w'))"
agree av "$d/availability.json" availability.csv failures.csv
/usr/bin/python3 - "$d"/av1/summary.json "$d"/av2/summary.json ${single:+"$d"/avsingle/summary.json} <<'PY'
import json, sys
states = [json.load(open(f))["availability"]["fabric_states"] for f in sys.argv[1:]]
assert all(s == states[0] for s in states), states
assert all(states[0][k]["source"] == "measured" for k in states[0]), states[0]
healthy = states[0]["healthy"]["iteration_s"]
assert states[0]["reduced_rate"]["iteration_s"] > healthy, states[0]
assert states[0]["bit_errors"]["iteration_s"] > healthy, states[0]
PY

# A map: pods 0-1 with their servers and the core on rank 0, pods 2-3 on rank 1, read from
# links.csv's node names as a user would.
/usr/bin/python3 - "$d/np2/links.csv" > "$d/map.json" <<'PY'
import csv, json, sys
nodes = {}
for row in csv.DictReader(open(sys.argv[1])):
    nodes[row["node"]] = row["role"]
def rank(name, role):
    if name.startswith("p"):          # p<pod>e<i>, p<pod>a<i>
        return 0 if int(name[1]) < 2 else 1
    if role == "core":
        return 0
    return 0 if int(name.split("g")[0][1:]) < 8 else 1   # s<server>g<gpu>
print(json.dumps({n: rank(n, r) for n, r in nodes.items()}))
PY
mpirun -np 2 "$runner" --scenario="$scenario" --out="$d/map" --ranks-by="map:$d/map.json" \
    > /dev/null 2>&1
for f in collectives.csv links.csv flows.csv; do
  cmp "$d/np1/$f" "$d/map/$f"
done

# Bad partitions: every rank says why and exits 2; no results folder.
bad() {
    local name=$1 np=$2 ranks_by=$3 expect=$4
    set +e
    mpirun -np "$np" "$runner" --scenario="$scenario" --out="$d/$name" --ranks-by="$ranks_by" \
        > /dev/null 2> "$d/$name.err"
    local rc=$?
    set -e
    [ "$rc" -eq 2 ] || { echo "$name: exit $rc, expected 2"; cat "$d/$name.err"; exit 1; }
    [ "$(grep -c "error: .*$expect" "$d/$name.err")" -eq "$np" ] ||
        { echo "$name: expected one '$expect' per rank"; cat "$d/$name.err"; exit 1; }
    test ! -e "$d/$name"
}
bad more-ranks-than-pods 5 pod "5 MPI ranks for a fabric of 4 groups"
/usr/bin/python3 -c "import json; m=json.load(open('$d/map.json')); m['nowhere']=0; \
json.dump(m, open('$d/unknown.json','w'))"
bad unknown-node 2 "map:$d/unknown.json" 'node "nowhere" is not in the fabric'
bad unknown-policy 2 rows "unknown; allowed: pod, rail, map:FILE"
# A barrier faster than the lookahead cannot cross ranks.
/usr/bin/python3 -c "import json; s=json.load(open('$d/barrier.json')); \
s['collective']['barrier_latency']='0s'; json.dump(s, open('$d/instant-sweep.json','w'))"
scenario=$d/instant-sweep.json
bad instant-sweep-barrier 2 pod "collective.barrier_latency = 0 ps: .* allowed: at least"
/usr/bin/python3 -c "import json; s=json.load(open('$training')); \
s['training']['jobs'][0]['barrier_latency']='0s'; json.dump(s, open('$d/instant.json','w'))"
scenario=$d/instant.json
bad instant-barrier 2 pod "BarrierLatency of 0 ps: .* allowed: at least"
echo "mpi-equivalence: np 1 and np 2 agree (collectives streamed and behind a barrier, a monitor, messages, PCAPs, link events, failures, bit errors, spraying, adaptive routing, flowlets and trimming with selective repeat, HPCC, DCTCP, two planes with recycling, a training job, availability); bad partitions exit 2 on every rank"
