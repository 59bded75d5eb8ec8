#!/usr/bin/env python3
"""How much of the node binary a bare Node.js process counts in its RSS, by how the binary entered the page cache.

Every Node.js process's RSS counts the pages of the node binary it maps (docs/sharding.md: about 42 MiB in each
member and in the single replica alike, the part of a member a quarter of the objects does not shrink). A read fault
on a file maps the page cache's pages around it (fault-around) and a whole large folio at once, so the count depends
on the folios the binary was cached in: small after reads of 4 KiB at random places, large after one sequential read
(a copy, a checksum, an image build). The probe evicts the binary from the cache (so no Node.js process may be
running), caches it one way or the other, and reads a bare `node` process's RSS, its file-backed and private parts
(smaps_rollup), twice each; the rounds alternate. It leaves the binary cached the small way, as it found it on this
machine.

  python3 tools/probe/node-file-rss.py [ROUNDS]
"""
import os
import shutil
import subprocess
import sys
import time

NODE = shutil.which('node')


def evict():
    fd = os.open(NODE, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def cache(sequential):
    fd = os.open(NODE, os.O_RDONLY)
    if sequential:
        while os.read(fd, 1 << 20):
            pass
    else:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        for offset in range(0, os.fstat(fd).st_size, 4096):
            os.pread(fd, 4096, offset)
    os.close(fd)


def bare_node():
    child = subprocess.Popen([NODE, '-e', 'setTimeout(() => {}, 1500)'])
    time.sleep(1)
    fields = {}
    with open(f'/proc/{child.pid}/smaps_rollup') as f:
        for line in f:
            key, *value = line.split()
            if key.endswith(':'):  # the first line names the address range
                fields[key[:-1]] = int(value[0]) / 1024
    child.wait()
    return fields


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    running = subprocess.run(['pgrep', '-x', 'node'], capture_output=True, text=True).stdout.split()
    if running:
        sys.exit(f'node processes are running ({len(running)}): their mappings would keep the binary cached')
    print(f'# {NODE} ({os.path.getsize(NODE) / 2**20:.1f} MiB), {time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}')
    for n in range(rounds):
        for sequential in [False, True] if n % 2 == 0 else [True, False]:
            evict()
            cache(sequential)
            for _ in range(2):
                f = bare_node()
                how = 'one sequential read ' if sequential else 'reads of 4 KiB      '
                print(f'round {n + 1}, cached by {how}: RSS {f["Rss"]:.1f} MiB, of it file-backed {f["Pss_File"]:.1f}, '
                      f'private anonymous {f["Pss_Anon"]:.1f}', flush=True)
    evict()
    cache(False)


if __name__ == '__main__':
    main()
