#!/usr/bin/env python3
"""Multiply the bench's A by its B with a library users would pick, and time it.

`sparse-explorer bench --peers` runs this once per peer:

    python3 spx-peers.py --peer NAME --threads T --reps R --warmup W DIR

NAME is torch-csr, torch-dense, scipy-csr or scipy-bsr. The runner makes
its matrices from the files in DIR, runs the product W times untimed and R
times timed, writes the last C and prints one JSON line.

DIR, written by the bench; every array is raw, in the machine's own byte
order (the runner and the bench run on the same machine):

  problem.json          {"m", "k", "n", "b", "nnz", "brows", "bcols",
                         "blocks"}: A is m x k with nnz non-zeros in
                         `blocks` b x b blocks; B is k x n
  csr-indptr.i64        A by element: m + 1 row offsets (int64)
  csr-indices.i32       nnz column indices (int32), rising in each row
  csr-values.f32        nnz values (float32)
  bsr-indptr.i64        A by block: brows + 1 block-row offsets (int64)
  bsr-indices.i32       `blocks` block-column indices (int32)
  bsr-values.f32        blocks x b x b values (float32), each block row
                        by row; elements past m or k are zero
  b.f32                 B, k x n, row by row (float32)

Written by the runner:

  c-NAME.f32            C = A B, m x n, row by row (float32)
  stdout, last line     {"peer", "ms", "q1", "q3", "threads", "note",
                         "version"}: the median and quartiles of the timed
                         runs in milliseconds, the threads the library
                         used and how they were set; or {"peer", "skip"}
                         saying why the peer could not run (exit 0).

Any other failure exits non-zero with the reason on stderr.
"""

import argparse
import json
import os
import sys
import time
import warnings

PEERS = ("torch-csr", "torch-dense", "scipy-csr", "scipy-bsr")
DEBIAN = {"torch": "python3-torch", "scipy": "python3-scipy",
          "numpy": "python3-numpy"}


def say(obj):
    print(json.dumps(obj), flush=True)


def need(module, peer):
    """Import module, or print the peer's skip line and return None."""
    try:
        return __import__(module)
    except ImportError:
        say({"peer": peer, "skip": "%s: not installed for %s (apt-get install "
             "%s)" % (module, sys.executable, DEBIAN[module])})
        return None


def quantile(v, q):
    """The q-quantile of sorted v, interpolating between neighbours."""
    pos = q * (len(v) - 1)
    i = int(pos)
    return v[i] + (pos - i) * (v[i + 1] - v[i]) if i + 1 < len(v) else v[-1]


def timed(run, warmup, reps):
    for _ in range(warmup):
        run()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        c = run()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return c, [quantile(times, q) for q in (0.5, 0.25, 0.75)]


def load(np, d):
    with open(os.path.join(d, "problem.json")) as f:
        p = json.load(f)
    a = lambda name, t: np.fromfile(os.path.join(d, name), dtype=t)
    p["csr"] = (a("csr-values.f32", np.float32), a("csr-indices.i32", np.int32),
                a("csr-indptr.i64", np.int64))
    p["bsr"] = (a("bsr-values.f32", np.float32), a("bsr-indices.i32", np.int32),
                a("bsr-indptr.i64", np.int64))
    p["B"] = a("b.f32", np.float32).reshape(p["k"], p["n"])
    if p["csr"][0].size != p["nnz"] or p["bsr"][1].size != p["blocks"]:
        raise ValueError("%s: the arrays do not match problem.json" % d)
    return p


def torch_peer(peer, p, threads):
    torch = sys.modules["torch"]
    torch.set_num_threads(threads)
    # CSR support is "beta" in torch 1.13 and says so on every build
    warnings.filterwarnings("ignore", message=".*Sparse CSR tensor support")
    v, ci, rp = p["csr"]
    a = torch.sparse_csr_tensor(torch.from_numpy(rp),
                                torch.from_numpy(ci.astype("int64")),
                                torch.from_numpy(v), size=(p["m"], p["k"]))
    if peer == "torch-dense":
        a = a.to_dense()
    b = torch.from_numpy(p["B"])
    info = {"threads": torch.get_num_threads(),
            "note": "torch.set_num_threads(%d)" % threads,
            "version": "torch " + torch.__version__}
    return (lambda: a @ b), (lambda c: c.numpy()), info


def scipy_peer(peer, p, threads):
    np, sparse = sys.modules["numpy"], __import__("scipy.sparse").sparse
    m, k, b = p["m"], p["k"], p["b"]
    B = p["B"]
    if peer == "scipy-csr":
        a = sparse.csr_matrix(p["csr"], shape=(m, k))
    else:
        v, ci, rp = p["bsr"]
        a = sparse.bsr_matrix((v.reshape(-1, b, b), ci, rp),
                              shape=(p["brows"] * b, p["bcols"] * b))
        B = np.zeros((p["bcols"] * b, p["n"]), dtype=np.float32)
        B[:k] = p["B"]
    # scipy.sparse multiplies in its own single-threaded loops
    info = {"threads": 1, "note": "scipy.sparse runs on one thread",
            "version": "scipy " + sys.modules["scipy"].__version__}
    return (lambda: a @ B), (lambda c: c[:m]), info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peer", required=True, choices=PEERS)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("dir")
    args = ap.parse_args()
    if args.threads < 1 or args.reps < 1 or args.warmup < 0:
        ap.error("--threads and --reps must be at least 1, --warmup at least 0")
    lib = args.peer.split("-")[0]
    if need(lib, args.peer) is None or need("numpy", args.peer) is None:
        return 0
    np = sys.modules["numpy"]
    p = load(np, args.dir)
    make = torch_peer if lib == "torch" else scipy_peer
    run, to_numpy, info = make(args.peer, p, args.threads)
    c, (ms, q1, q3) = timed(run, args.warmup, args.reps)
    out = np.ascontiguousarray(to_numpy(c), dtype=np.float32)
    out.tofile(os.path.join(args.dir, "c-%s.f32" % args.peer))
    say(dict(peer=args.peer, ms=ms, q1=q1, q3=q3, **info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
