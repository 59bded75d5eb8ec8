#!/usr/bin/env python3
"""Process starts with and without the kernel's multi-size THP for anonymous memory (needs root, Linux 6.8+).

CI starts tens of thousands of short processes (kubectl, psql, shells, runc, PostgreSQL's backends), each faulting in
its fresh stacks, heaps and data one 4 KiB page at a time, at 11-19 us a fault on this host
(bench/latest/ci-time/README.md). With `hugepages-<size>kB/enabled` set to `always` for the sizes below 2 MiB, such
memory faults in folios of up to 1 MiB. Both settings run with `enabled` (the 2 MiB size) `always`, as in .ci/run; the
rounds alternate their order. Every setting is put back as it was.

  python3 tools/ci-time/mthp-starts.py [ROUNDS] [STARTS]   -> a line per run: CPU-s (user, system) and minor faults
"""
import re
import resource
import subprocess
import sys
from glob import glob

THP = '/sys/kernel/mm/transparent_hugepage'
SIZES = [p for p in glob(f'{THP}/hugepages-*kB/enabled') if '/hugepages-2048kB/' not in p]
COMMANDS = [
    ['kubectl', 'version', '--client', '-o', 'json'],
    ['psql', '--version'],
    ['bash', '-c', 'true'],
    ['python3', '-c', 'pass'],
]


def current(path):
    return re.search(r'\[(\w+)\]', open(path).read()).group(1)


def write(path, value):
    with open(path, 'w') as f:
        f.write(value)


def run(starts):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(starts):
        for command in COMMANDS:
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, after.ru_minflt - before.ru_minflt


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    starts = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    was = {path: current(path) for path in [f'{THP}/enabled', *SIZES]}
    print(f'# {len(SIZES)} sizes below 2 MiB; {starts} x {[c[0] for c in COMMANDS]} a run; thp: `enabled` always only')
    try:
        write(f'{THP}/enabled', 'always')
        for n in range(rounds):
            for mthp in ([False, True] if n % 2 == 0 else [True, False]):
                for path in SIZES:
                    write(path, 'always' if mthp else 'never')
                user, system, faults = run(starts)
                name = 'mthp' if mthp else 'thp '
                print(f'round {n + 1} {name}: {user + system:.2f} CPU-s (user {user:.2f}, system {system:.2f}), '
                      f'{faults} minor faults', flush=True)
    finally:
        for path, value in was.items():
            write(path, value)


if __name__ == '__main__':
    main()
