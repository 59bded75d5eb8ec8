import sys, struct, subprocess, re
pid = int(sys.argv[1]); binary = '/usr/bin/node'
secs = []
for line in subprocess.run(['readelf', '-SW', binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r'\s+\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
    if m and int(m.group(4), 16) > 0 and int(m.group(2), 16) > 0:
        secs.append((m.group(1), int(m.group(3), 16), int(m.group(4), 16)))
counts = {}
pm = open(f'/proc/{pid}/pagemap', 'rb')
for line in open(f'/proc/{pid}/maps'):
    parts = line.split()
    if len(parts) < 6 or parts[5] != binary: continue
    lo, hi = (int(x, 16) for x in parts[0].split('-')); off = int(parts[2], 16)
    for va in range(lo, hi, 4096):
        pm.seek(va // 4096 * 8); e = struct.unpack('Q', pm.read(8))[0]
        if not (e >> 63) & 1: continue
        fo = off + va - lo
        name = next((s[0] for s in secs if s[1] <= fo < s[1] + s[2]), 'other')
        counts[name] = counts.get(name, 0) + 1
for k, v in sorted(counts.items(), key=lambda kv: -kv[1]):
    print(f'{v*4/1024:7.1f} MiB  {k}')
print(f'{sum(counts.values())*4/1024:7.1f} MiB  total')
