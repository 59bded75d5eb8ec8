#!/usr/bin/env python3
"""The machine's busy CPU-seconds in each phase of a command, a phase ending at each line of its output that matches
MARK: where a long command with parts (the node suites' phases) spends the machine, which `sa` cannot say (it sums by
command name over the whole run). Run on a quiet machine: everything busy counts, not only the command's processes.

  python3 tools/ci-time/busy-by-phase.py MARK OUT -- command [args...]

The command's output goes to OUT, each line prefixed with the second it was read; the table goes to stdout: each
phase's wall seconds, busy CPU-s (user, nice, system, irq, softirq, steal from /proc/stat, sampled every second) and
their ratio (cores), then the whole run's. Exits with the command's exit code."""
import os, re, subprocess, sys, threading, time

HZ = os.sysconf('SC_CLK_TCK')  # /proc/stat counts in these


def busy_ticks():
    with open('/proc/stat') as f:
        user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, f.readline().split()[1:9])
    return user + nice + system + irq + softirq + steal


def main():
    mark, out, sep, *command = sys.argv[1:]
    if sep != '--' or not command:
        sys.exit(__doc__)
    samples = [(time.time(), busy_ticks())]
    done = threading.Event()

    def sample():
        while not done.wait(1):
            samples.append((time.time(), busy_ticks()))

    threading.Thread(target=sample, daemon=True).start()
    marks = []
    with open(out, 'w') as log, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as p:
        for line in p.stdout:
            now = time.time()
            log.write(f'{now:.0f} {line}')
            log.flush()  # readable while the command runs
            if re.search(mark, line):
                marks.append((now, line.strip()))
    done.set()
    end = (time.time(), busy_ticks())
    samples.append(end)

    def busy_at(t):
        # the sample nearest to t: phases are tens of seconds, samples a second apart
        return min(samples, key=lambda s: abs(s[0] - t))[1]

    start = samples[0]
    print(f'{"wall s":>7} {"CPU-s":>8} {"cores":>6}  phase ending at')
    previous = start[0]
    for t, line in marks + [(end[0], '(end of the command)')]:
        wall, cpu = t - previous, (busy_at(t) - busy_at(previous)) / HZ
        print(f'{wall:7.0f} {cpu:8.1f} {cpu / max(wall, 1):6.2f}  {line[:100]}')
        previous = t
    wall, cpu = end[0] - start[0], (end[1] - start[1]) / HZ
    print(f'{wall:7.0f} {cpu:8.1f} {cpu / wall:6.2f}  the whole run (exit {p.returncode})')
    sys.exit(p.returncode)


if __name__ == '__main__':
    main()
