#!/usr/bin/env bash
# Benchmark every DLMC matrix (b = 1) against dense and every peer of
# `bench --peers` (librsb, LIBXSMM, GraphBLAS, Eigen in process; torch and
# SciPy through the runner when installed), and print per file our static
# plan's ms beside each peer's ms, then geometric means of peer ms ÷
# static ms (above 1: ours faster). Usage:
#   tests/bench-dlmc.sh [BUILD_DIR] [N] [THREADS] [DLMC_DIR] [JSON_OUT]
# DLMC_DIR (or SPX_DLMC_DIR, as the tests use) is the folder holding the
# collection's .smtx files, as the collection lays them out (transformer/…
# and rn50/…). JSON_OUT, when given, keeps each file's `bench --json` line
# (with its "path") to redo the table without measuring again:
#   SPX_DLMC_JSON=JSON_OUT tests/bench-dlmc.sh
# Measure on a quiet machine: every contestant shares the cores.
set -eu
build=${1:-build}
n=${2:-256}
threads=${3:-2}
dlmc=${4:-${SPX_DLMC_DIR:-}}
out=${5:-/dev/null}
table='
import json, math, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
if not rows:
    sys.exit("no results")
peers = [p for p in rows[0]["peers"]
         if any(r["peers"][p]["ran"] for r in rows)]
short = lambda p: p.replace("transformer/", "tf/").replace("magnitude_pruning", "mp") \
    .replace("_fully_connected", "").replace("body_", "").replace(".smtx", "")
print("%-66s %5s %8s %8s" % ("matrix (n = %d, %d threads)" % (rows[0]["n"], rows[0]["threads"]),
                            "zeros", "dense", "static") +
      "".join(" %9s" % p for p in peers))
logs = {p: [] for p in peers}
for r in rows:
    st = r["static"]["ms"]
    line = "%-66s %4.1f%% %8.3f %8.3f" % (short(r["path"]), 100 * (1 - r["density"]),
                                         r["dense"]["ms"], st)
    for p in peers:
        q = r["peers"][p]
        line += " %9.3f" % q["ms"] if q["ran"] else " %9s" % "—"
        if q["ran"]:
            logs[p].append(math.log(q["ms"] / st))
    print(line + ("  noisy" if r["noise"] else ""))
print("geometric mean of peer ms / static ms: " + ", ".join(
    "%s %.2fx (%d files)" % (p, math.exp(sum(v) / len(v)), len(v))
    for p, v in logs.items() if v))
'
if [ -n "${SPX_DLMC_JSON:-}" ]; then
  python3 -c "$table" < "$SPX_DLMC_JSON"
  exit
fi
[ -d "$dlmc" ] || { echo "give the DLMC folder (4th argument or SPX_DLMC_DIR)" >&2; exit 2; }
bin=$build/app/sparse-explorer
[ -x "$bin" ] || { echo "no $bin: build first" >&2; exit 2; }
find "$dlmc" -name '*.smtx' | sort | while read -r f; do
  "$bin" bench --mask "$f" --n "$n" --block 1 --threads "$threads" \
    --peers --json | sed "s|^{|{\"path\": \"${f#"$dlmc"/}\", |"
done | tee "$out" | python3 -c "$table"
