#!/usr/bin/env bash
# Whether `bench` stays honest on a busy machine. Measures one layer RUNS
# times on a quiet machine, then RUNS times while another process group
# (setsid) keeps one core busy, and prints for each run the static and
# dynamic speedups, their ratios' middle half and whether they were
# flagged noisy; a busy run passes when it is flagged or within 20% of
# the quiet runs' median. BUSY is "steady" (a loop that never stops) or
# "bursts" (on for 40 ms, off for 60 ms, as programs that come and go).
# Usage:
#   tests/bench-busy.sh [BUILD_DIR] [MASK] [N] [RUNS] [BUSY] [BLOCK]
# MASK defaults to a ResNet-50 layer (rn50/magnitude_pruning/0.9/
# bottleneck_2_block_group3_2_1.smtx) of the DLMC folder in SPX_DLMC_DIR.
# Start it on a quiet machine (load under 0.6): the quiet runs are the
# reference.
set -eu
build=${1:-build}
layer=rn50/magnitude_pruning/0.9/bottleneck_2_block_group3_2_1.smtx
mask=${2:-${SPX_DLMC_DIR:+$SPX_DLMC_DIR/$layer}}
[ -n "$mask" ] || { echo "bench-busy.sh: give MASK or set SPX_DLMC_DIR" >&2; exit 2; }
n=${3:-1024}
runs=${4:-10}
busy=${5:-steady}
block=${6:-1}
program="$build/app/sparse-explorer"
[ -x "$program" ] || { echo "bench-busy.sh: no $program (build first)" >&2; exit 2; }
[ -r "$mask" ] || { echo "bench-busy.sh: cannot read $mask" >&2; exit 2; }
case "$busy" in
  steady) loop='while :; do :; done' ;;
  bursts) loop='while :; do timeout 0.04 bash -c "while :; do :; done"; sleep 0.06; done' ;;
  *) echo "bench-busy.sh: BUSY is steady or bursts, not '$busy'" >&2; exit 2 ;;
esac

out=$(mktemp -d)
trap 'rm -rf "$out"; [ -n "${hog:-}" ] && kill -- -"$hog" 2>/dev/null || true' EXIT
measure () { # $1: quiet or busy; $2: run
  "$program" bench --mask "$mask" --n "$n" --block "$block" --json \
    > "$out/$1-$2.json"
}
for i in $(seq "$runs"); do measure quiet "$i"; done
setsid bash -c "$loop" & hog=$!
sleep 0.5
for i in $(seq "$runs"); do measure busy "$i"; done
kill -- -"$hog" 2>/dev/null || kill "$hog"
hog=

python3 - "$out" "$runs" "$busy" <<'EOF'
import json, statistics, sys
out, runs, busy = sys.argv[1], int(sys.argv[2]), sys.argv[3]
load = lambda kind: [json.load(open("%s/%s-%d.json" % (out, kind, i)))
                     for i in range(1, runs + 1)]
quiet, loud = load("quiet"), load("busy")
first = quiet[0]
print("%s × %s, n = %s, b = %s, %s threads, dense %s; busy: %s" %
      (first["m"], first["k"], first["n"], first["block"], first["threads"],
       first["dense"]["library"], busy))
passed = 0
for mode in ("static", "dynamic"):
    ref = statistics.median(r[mode]["speedup"] for r in quiet)
    print("\n%s: quiet median %.2f×" % (mode, ref))
    for kind, rows in (("quiet", quiet), ("busy", loud)):
        for i, r in enumerate(rows, 1):
            t = r[mode]
            off = t["speedup"] / ref - 1
            ok = t["noisy"] or abs(off) <= 0.20
            if kind == "busy" and mode == "static":
                passed += ok
            print("  %-5s %2d  %5.2f×  ratios %5.2f–%5.2f  %+5.0f%%  %-14s %s" %
                  (kind, i, t["speedup"], t.get("speedup_q1", float("nan")),
                   t.get("speedup_q3", float("nan")), 100 * off,
                   "noisy (%s)" % t["noise"] if t["noisy"] else "clean",
                   "" if kind == "quiet" else "ok" if ok else "WRONG"))
print("\nbusy static runs flagged or within 20%%: %d of %d" % (passed, runs))
EOF
