#!/usr/bin/env python3
"""The CPU of every process by its command line, sampled from /proc: what process accounting cannot say (`sa` keeps
16 characters of a command's name: every Node.js script is `node`).

  python3 tools/ci-time/proc-sampler.py sample OUT.json     # every 2 s until SIGTERM; OUT.json rewritten every 30 s
  python3 tools/ci-time/proc-sampler.py summary OUT.json    # CPU-s by command, largest first

A process's own CPU (utime + stime, not its children's) as last seen, keyed by pid and start time; processes that
live less than 2 s are missed (sum those by name with cpu-by-command.sh), and processes that ran before the sampler
started count their CPU from their own start. Reading /proc every 2 s costs about 0.5 % of a core."""
import collections, json, os, re, signal, sys, time


def sample(out):
    hz = os.sysconf('SC_CLK_TCK')
    seen = {}

    def dump(*stop):
        with open(out + '.part', 'w') as f:
            json.dump(seen, f)
        os.replace(out + '.part', out)
        if stop:
            sys.exit(0)

    signal.signal(signal.SIGTERM, dump)
    last = time.time()
    while True:
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                with open(f'/proc/{pid}/stat') as f:
                    stat = f.read()
                fields = stat[stat.rindex(')') + 2:].split()  # the command name may hold spaces and parentheses
                key = f'{pid}:{fields[19]}'  # pid and start time: a reused pid is another process
                cpu = (int(fields[11]) + int(fields[12])) / hz
                if key not in seen:
                    with open(f'/proc/{pid}/cmdline', 'rb') as f:
                        cmd = f.read().replace(b'\0', b' ').decode(errors='replace').strip()[:300]
                    seen[key] = {'cmd': cmd, 'cpu': cpu, 'ppid': fields[1]}
                else:
                    seen[key]['cpu'] = cpu
            except (OSError, ValueError, IndexError):
                pass  # ended while read
        if time.time() - last > 30:
            dump()
            last = time.time()
        time.sleep(2)


def command_of(cmd):
    """The executable, and for Node.js the script and its first two arguments (a clone's path left out)."""
    tokens = cmd.split()
    exe = tokens[0].split('/')[-1]
    if exe not in ('node', 'nodejs'):
        return exe
    args = [t for t in tokens[1:] if not t.startswith('-') and not t.startswith('file://')]
    return 'node ' + ' '.join(re.sub(r'^/work/[^/]+/repo/', '', a) for a in args[:3])


def summary(file):
    procs = json.load(open(file))
    cpu, count = collections.Counter(), collections.Counter()
    for p in procs.values():
        if p['cmd']:  # kernel threads have none
            cpu[command_of(p['cmd'])] += p['cpu']
            count[command_of(p['cmd'])] += 1
    print(f'{len(procs)} processes seen, {sum(cpu.values()):.0f} CPU-s of those with a command line')
    print('   CPU-s  processes  command')
    for name, s in cpu.most_common(40):
        print(f'{s:8.1f}  {count[name]:9d}  {name[:150]}')


if __name__ == '__main__':
    {'sample': sample, 'summary': summary}[sys.argv[1]](sys.argv[2])
