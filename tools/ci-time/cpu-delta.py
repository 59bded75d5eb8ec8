#!/usr/bin/env python3
"""What each process of the machine spends over a window: its CPU at the end less its CPU at the start (0 for one
that started inside the window), by command line, and the machine's busy CPU-s over the same window. For a machine
at rest, e.g. the node cluster with the demo applied between two suites: which part of its floor is whose.

  python3 tools/ci-time/cpu-delta.py SECONDS

A process that starts and ends inside the window is missed (count those with cpu-by-command.sh), so the rows may sum
to less than the machine's figure."""
import collections, os, sys, time

HZ = os.sysconf('SC_CLK_TCK')


def processes():
    """(pid, start time) → (command line, utime + stime in ticks) of every process now."""
    out = {}
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/stat') as f:
                stat = f.read()
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(errors='replace').strip()
        except OSError:
            continue  # ended between the listing and the read
        fields = stat[stat.rindex(')') + 2 :].split()
        name = cmdline or stat[stat.index('(') + 1 : stat.rindex(')')]  # a kernel thread has no command line
        out[(pid, fields[19])] = (name[:90], int(fields[11]) + int(fields[12]))
    return out


def busy_ticks():
    with open('/proc/stat') as f:
        user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, f.readline().split()[1:9])
    return user + nice + system + irq + softirq + steal


def main():
    seconds = float(sys.argv[1])
    before, busy_before = processes(), busy_ticks()
    time.sleep(seconds)
    after, busy_after = processes(), busy_ticks()
    by_command = collections.Counter()
    for key, (name, ticks) in after.items():
        by_command[name] += ticks - before.get(key, (name, 0))[1]
    print(f'machine: {(busy_after - busy_before) / HZ:.1f} busy CPU-s in {seconds:.0f} s')
    for name, ticks in by_command.most_common(25):
        if ticks > 0:
            print(f'{ticks / HZ:7.2f}  {name}')


if __name__ == '__main__':
    main()
