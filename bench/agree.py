#!/usr/bin/env python3
"""agree.py RESULTS_A RESULTS_B: do two runs' instruction counts agree?

Compares every instructions-a-packet figure (cost.csv in a run's results:
build/bench/results or a copy of it; the median of the measured rounds, per
load, size, stamps and contender) of two runs, made on different boots, and
prints each pair with its difference. make bench runs it with
MGCAP_BENCH_AGREE=RESULTS_A (bench/run.sh).
Exits 1 if a figure is missing from one run or differs by more than
--limit percent (default 1)."""
import argparse
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the source tree
import report  # noqa: E402


def figures(res):
    return {(load, size, hwts, c): s["ipp"]
            for (load, size, hwts), by in report.costs(res).items() for c, s in by.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--limit", type=float, default=1.0, help="percent")
    args = ap.parse_args()
    a, b = figures(args.a), figures(args.b)
    if not a:
        sys.exit(f"agree: no cost figures in {args.a}")
    worst, bad = 0.0, 0
    print("load,size,stamps,contender,a,b,difference_percent")
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            print(f"agree: {','.join(map(str, key))} is in one run only", file=sys.stderr)
            bad += 1
            continue
        diff = 100.0 * abs(a[key] - b[key]) / a[key]
        worst = max(worst, diff)
        bad += diff > args.limit
        print(f"{','.join(map(str, key))},{a[key]:.1f},{b[key]:.1f},{diff:.3f}")
    print(f"agree: {len(a)} figures, largest difference {worst:.3f} %, "
          f"{bad} missing or beyond {args.limit} %", file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
