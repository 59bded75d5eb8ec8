import sys, struct, subprocess, re, bisect
pid = int(sys.argv[1]); binary = '/usr/bin/node'; want = sys.argv[2] if len(sys.argv) > 2 else '.rodata'
# section file offsets -> address delta
secs = {}
for line in subprocess.run(['readelf', '-SW', binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r'\s+\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
    if m: secs[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
addr0, off0, size0 = secs[want]
syms = []
for line in subprocess.run(['nm', '-S', '--defined-only', binary], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4:
        a = int(p[0], 16); s = int(p[1], 16)
        if addr0 <= a < addr0 + size0 and s > 0: syms.append((a, s, p[3]))
syms.sort(); starts = [s[0] for s in syms]
counts = {}
pm = open(f'/proc/{pid}/pagemap', 'rb')
for line in open(f'/proc/{pid}/maps'):
    parts = line.split()
    if len(parts) < 6 or parts[5] != binary: continue
    lo, hi = (int(x, 16) for x in parts[0].split('-')); off = int(parts[2], 16)
    for va in range(lo, hi, 4096):
        fo = off + va - lo
        if not (off0 <= fo < off0 + size0): continue
        pm.seek(va // 4096 * 8); e = struct.unpack('Q', pm.read(8))[0]
        if not (e >> 63) & 1: continue
        a = addr0 + fo - off0
        i = bisect.bisect_right(starts, a + 4095) - 1
        name = 'unknown'
        if i >= 0 and syms[i][0] + syms[i][1] > a: name = syms[i][2]
        name = subprocess.run(['c++filt', name], capture_output=True, text=True).stdout.strip()[:90] if name.startswith('_Z') else name
        counts[name] = counts.get(name, 0) + 1
for k, v in sorted(counts.items(), key=lambda kv: -kv[1])[:int(sys.argv[3]) if len(sys.argv) > 3 else 25]:
    print(f'{v*4/1024:7.2f} MiB  {k}')
