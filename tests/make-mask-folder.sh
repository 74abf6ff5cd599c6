#!/usr/bin/env bash
# Write a folder of N tiny DLMC .smtx masks (sides 2 to 32, about half of
# their elements non-zero, seeded) to time a survey of many small layers:
#   tests/make-mask-folder.sh DIR [N] [SEED]
#   /usr/bin/time build/app/sparse-explorer layers DIR --source model
set -eu
dir=${1:?usage: make-mask-folder.sh DIR [N] [SEED]}
count=${2:-10000}
seed=${3:-1}
mkdir -p "$dir"
awk -v dir="$dir" -v count="$count" -v seed="$seed" 'BEGIN {
  srand (seed)
  for (f = 0; f < count; f++) {
    rows = 2 + int (rand () * 31); cols = 2 + int (rand () * 31)
    offsets = "0"; columns = ""; nnz = 0
    for (r = 0; r < rows; r++) {
      for (c = 0; c < cols; c++)
        if (rand () < 0.5 || (nnz == 0 && r == rows - 1 && c == cols - 1)) {
          columns = columns (nnz ? " " : "") c; nnz++
        }
      offsets = offsets " " nnz
    }
    path = sprintf ("%s/m%05d.smtx", dir, f)
    printf "%d, %d, %d\n%s\n%s\n", rows, cols, nnz, offsets, columns > path
    close (path)
  }
}'
