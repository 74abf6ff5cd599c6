#!/usr/bin/env bash
# Benchmark every DLMC matrix (b = 1) against dense sgemm and librsb, and
# print per-file speedups with geometric means. Usage:
#   tests/bench-dlmc.sh [BUILD_DIR] [N] [THREADS] [DLMC_DIR]
# DLMC_DIR (or SPX_DLMC_DIR, as the tests use) is the folder holding the
# collection's .smtx files.
set -eu
build=${1:-build}
n=${2:-256}
threads=${3:-2}
dlmc=${4:-${SPX_DLMC_DIR:-}}
[ -d "$dlmc" ] || { echo "give the DLMC folder (4th argument or SPX_DLMC_DIR)" >&2; exit 2; }
bin=$build/app/sparse-explorer
[ -x "$bin" ] || { echo "no $bin: build first" >&2; exit 2; }
find "$dlmc" -name '*.smtx' | sort | while read -r f; do
  "$bin" bench --mask "$f" --n "$n" --block 1 --threads "$threads" \
    --peers --json | sed "s|^{|{\"path\": \"${f#$dlmc/}\", |"
done | python3 -c '
import json, math, sys
rows = [json.loads(l) for l in sys.stdin]
print("%-90s %6s %8s %8s %8s %8s" % ("matrix", "sparse", "static", "dynamic", "librsb", "st/rsb"))
logs = {"static": [], "dynamic": [], "ratio": []}
for r in rows:
    st, dy, rsb = r["static"]["speedup"], r["dynamic"]["speedup"], r["peers"]["librsb"]["speedup"]
    print("%-90s %5.1f%% %7.2fx %7.2fx %7.2fx %7.2fx" % (r["path"], 100 * (1 - r["density"]), st, dy, rsb, st / rsb))
    logs["static"].append(math.log(st)); logs["dynamic"].append(math.log(dy)); logs["ratio"].append(math.log(st / rsb))
g = lambda v: math.exp(sum(v) / len(v))
print("geometric mean over %d files: static %.2fx, dynamic %.2fx over dense; static %.2fx over librsb" % (len(rows), g(logs["static"]), g(logs["dynamic"]), g(logs["ratio"])))
'
