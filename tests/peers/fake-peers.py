#!/usr/bin/env python3
"""A stand-in for spx-peers.py that speaks its protocol (see there) with
the standard library only, so that test-cli can check how the bench reads
answers without torch or scipy:

  torch-csr    C = A B from the csr-* files; ms 2, quartiles 1.5 and 3,
               3 threads
  torch-dense  C = 2 A B from the bsr-* files (max relative error 1)
  scipy-csr    skipped, with the note "fake: not installed"
  scipy-bsr    fails: exit 1, "fake failure" on stderr

With FAKE_PEERS_MODE=broken every answer is wrong in another way: a C one
float short, a line that is not JSON, JSON without "ms", death by a
signal. Other modes do the same for every peer:

  flood   print without end (torch-csr and scipy-csr on stdout, the
          others on stderr)
  sleep   start a child that sleeps, write "RUNNER CHILD" (their process
          ids) to $FAKE_PEERS_PIDS/PEER.pid, then sleep
  nan     answer with numbers that are not finite: torch-csr a C of NaN,
          torch-dense a median of NaN, scipy-csr a third quartile of
          Infinity, scipy-bsr a C with one infinite value
"""

import argparse
import array
import json
import os
import signal
import subprocess
import sys
import time


def read(d, name, code):
    a = array.array(code)
    with open(os.path.join(d, name), "rb") as f:
        a.frombytes(f.read())
    return a


def product_csr(d, p):
    rp, ci = read(d, "csr-indptr.i64", "q"), read(d, "csr-indices.i32", "i")
    v, B = read(d, "csr-values.f32", "f"), read(d, "b.f32", "f")
    n = p["n"]
    C = [0.0] * (p["m"] * n)
    for i in range(p["m"]):
        for z in range(rp[i], rp[i + 1]):
            for j in range(n):
                C[i * n + j] += v[z] * B[ci[z] * n + j]
    return C


def product_bsr(d, p):
    rp, ci = read(d, "bsr-indptr.i64", "q"), read(d, "bsr-indices.i32", "i")
    v, B = read(d, "bsr-values.f32", "f"), read(d, "b.f32", "f")
    m, k, n, b = p["m"], p["k"], p["n"], p["b"]
    C = [0.0] * (m * n)
    for br in range(p["brows"]):
        for z in range(rp[br], rp[br + 1]):
            for r in range(b):
                for c in range(b):
                    row, col = br * b + r, ci[z] * b + c
                    if row < m and col < k:
                        for j in range(n):
                            C[row * n + j] += v[(z * b + r) * b + c] * B[col * n + j]
    return C


def write_c(d, peer, C):
    with open(os.path.join(d, "c-%s.f32" % peer), "wb") as f:
        array.array("f", C).tofile(f)


def flood(stream):
    line = "x" * 1023 + "\n"
    while True:
        stream.write(line)


def sleep(peer):
    child = subprocess.Popen([sys.executable, "-c",
                              "import time; time.sleep(3600)"])
    pids = os.environ.get("FAKE_PEERS_PIDS")
    if pids:
        path = os.path.join(pids, peer + ".pid")
        with open(path + ".part", "w") as f:
            f.write("%d %d\n" % (os.getpid(), child.pid))
        os.rename(path + ".part", path)
    time.sleep(3600)


def not_finite(d, peer, p, answer):
    c = [0.5] * (p["m"] * p["n"])
    if peer == "torch-csr":
        c = [float("nan")] * len(c)
    elif peer == "torch-dense":
        answer["ms"] = float("nan")
    elif peer == "scipy-csr":
        answer["q3"] = float("inf")
    else:
        c[len(c) // 2] = float("inf")
    write_c(d, peer, c)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--peer", "--threads", "--reps", "--warmup"):
        ap.add_argument(opt, required=True)
    ap.add_argument("dir")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "problem.json")) as f:
        p = json.load(f)
    answer = {"peer": a.peer, "ms": 2.0, "q1": 1.5, "q3": 3.0, "threads": 3,
              "note": "fake threads", "version": "fake 1.0"}
    mode = os.environ.get("FAKE_PEERS_MODE")
    if mode == "flood":
        flood(sys.stdout if a.peer in ("torch-csr", "scipy-csr")
              else sys.stderr)
    elif mode == "sleep":
        sleep(a.peer)
    elif mode == "nan":
        not_finite(a.dir, a.peer, p, answer)
    elif mode == "broken":
        if a.peer == "torch-csr":
            write_c(a.dir, a.peer, product_csr(a.dir, p)[:-1])
        elif a.peer == "torch-dense":
            print("hello")
            return 0
        elif a.peer == "scipy-csr":
            del answer["ms"]
        else:
            os.kill(os.getpid(), signal.SIGKILL)
    elif a.peer == "torch-csr":
        write_c(a.dir, a.peer, product_csr(a.dir, p))
    elif a.peer == "torch-dense":
        write_c(a.dir, a.peer, [2 * x for x in product_bsr(a.dir, p)])
    elif a.peer == "scipy-csr":
        answer = {"peer": a.peer, "skip": "fake: not installed"}
    else:
        print("Traceback (most recent call last):\nfake failure",
              file=sys.stderr)
        return 1
    print(json.dumps(answer))  # NaN and Infinity as Python writes them
    return 0


if __name__ == "__main__":
    sys.exit(main())
