/**
 * Writes lib/apiserver/cel/tz-history.ts: the zones whose offsets in the tz database the apiserver reads (Debian's
 * tzdata in /usr/share/zoneinfo, which the apiserver's hosts and images carry, built with backzone and the legacy
 * zones' own definitions) differ from ICU's (Node's Intl), with Debian's transitions up to the instant from which the
 * two agree. Run on a Debian machine: `npx tsx tools/tz-history/main.ts`.
 *
 * Offsets are compared at every transition of the TZif file (and the second before it), at year 1, and on the first of
 * every month from 1800 to 2037 (ICU transitions the file lacks); a zone differing anywhere is written with its
 * transitions before the first transition after the last difference.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = '/usr/share/zoneinfo';
const OUT = path.join(__dirname, '../../lib/apiserver/cel/tz-history.ts');
/** Zones time-zones.ts models itself (LEGACY_ZONES). */
const MODELLED = new Set(['EST', 'MST', 'HST', 'EST5EDT', 'CST6CDT', 'MST7MDT', 'PST8PDT']);

interface Zone {
  readonly times: number[];
  readonly offsets: number[];
  readonly first: number;
  readonly footerHasRules: boolean;
}

/** After the last timestamp CEL has (9999-12-31T23:59:59Z). */
const END_OF_TIME = 253402300800;

/** A TZif file's 64-bit data, and the offset Go's time package uses before the first transition (lookupFirstZone). */
function readTzif(file: string): Zone | undefined {
  const d = fs.readFileSync(file);
  if (d.toString('latin1', 0, 4) !== 'TZif' || d[4] < 0x32) return undefined;
  const counts = (o: number) => Array.from({ length: 6 }, (_, i) => d.readUInt32BE(o + 20 + i * 4));
  let [isutc, isstd, leap, timecnt, typecnt, charcnt] = counts(0);
  let o = 44 + timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isutc;
  [isutc, isstd, leap, timecnt, typecnt, charcnt] = counts(o);
  o += 44;
  const times = Array.from({ length: timecnt }, (_, i) => Number(d.readBigInt64BE(o + i * 8)));
  o += timecnt * 8;
  const index = Array.from({ length: timecnt }, (_, i) => d[o + i]);
  o += timecnt;
  const types = Array.from({ length: typecnt }, (_, i) => ({
    offset: d.readInt32BE(o + i * 6),
    dst: d[o + i * 6 + 4] === 1,
  }));
  // Go's lookupFirstZone: the first type if no transition uses it, else the standard type before a first DST one, else the first standard type
  let first = 0;
  if (index.includes(0)) {
    first = -1;
    if (index.length > 0 && types[index[0]].dst) {
      for (let z = index[0] - 1; z >= 0 && first < 0; z--) if (!types[z].dst) first = z;
    }
    if (first < 0) {
      first = Math.max(
        0,
        types.findIndex((t) => !t.dst),
      );
    }
  }
  const footer = d.toString('latin1').split('\n').slice(-2)[0];
  return {
    times,
    offsets: index.map((i) => types[i].offset),
    first: types[first].offset,
    footerHasRules: footer.includes(','),
  };
}

function goOffset(z: Zone, t: number): number {
  let i = -1;
  for (let k = 0; k < z.times.length && z.times[k] <= t; k++) i = k;
  return i < 0 ? z.first : z.offsets[i];
}

const formats = new Map<string, Intl.DateTimeFormat | undefined>();
function intlOffset(name: string, t: number): number | undefined {
  if (!formats.has(name)) {
    try {
      formats.set(
        name,
        new Intl.DateTimeFormat('en-US', {
          timeZone: name,
          hourCycle: 'h23',
          era: 'short',
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
          hour: 'numeric',
          minute: 'numeric',
          second: 'numeric',
        }),
      );
    } catch {
      formats.set(name, undefined);
    }
  }
  const f = formats.get(name);
  if (!f) return undefined;
  const parts = Object.fromEntries(f.formatToParts(new Date(t * 1000)).map((p) => [p.type, p.value]));
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  return Math.round((wall.getTime() - t * 1000) / 1000);
}

const names: string[] = [];
const walk = (dir: string) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'posix' && e.name !== 'right') walk(p);
    } else if (/^[A-Z]/.test(e.name)) {
      names.push(path.relative(ROOT, p));
    }
  }
};
walk(ROOT);
names.sort();

const months: number[] = [];
for (let y = 1800; y <= 2037; y++) for (let m = 0; m < 12; m++) months.push(Date.UTC(y, m, 1) / 1000);

const history: Record<string, number[]> = {};
for (const name of names) {
  if (MODELLED.has(name)) continue;
  const zone = readTzif(path.join(ROOT, name));
  if (!zone || intlOffset(name, 0) === undefined) continue;
  const points = [-62135596800, ...zone.times.flatMap((t) => [t - 1, t]), ...months];
  const differing = points.filter((t) => intlOffset(name, t) !== goOffset(zone, t));
  if (differing.length === 0) continue;
  const last = Math.max(...differing);
  // differing after the file's last transition: Debian's data throughout, if its footer (after 2037) is a fixed offset
  let until = zone.times.find((t) => t > last);
  if (until === undefined) {
    if (zone.footerHasRules) {
      throw new Error(`${name}: differs from ICU after its last transition, which has daylight-saving rules`);
    }
    until = END_OF_TIME;
  }
  const pairs = zone.times.flatMap((t, i) => (t < until ? [t, zone.offsets[i]] : []));
  history[name] = [until, zone.first, ...pairs];
}

const tzdata = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'tzdata'], { encoding: 'utf8' });
const lines = Object.entries(history).map(([name, data]) => `  '${name}': [${data.join(', ')}],`);
fs.writeFileSync(
  OUT,
  `/**
 * Generated by tools/tz-history/main.ts from Debian's tzdata ${tzdata} (/usr/share/zoneinfo): do not edit.
 *
 * The zones whose offsets the apiserver (Go's time package on Debian's tzdata) and ICU (Node's Intl) disagree on, each
 * as [until, offset before the first transition, then transition time and offset after it, …] (Unix seconds, seconds
 * east of UTC): Debian's data before \`until\`, from which the two agree.
 */
export const TZ_HISTORY: Readonly<Record<string, readonly number[]>> = {
${lines.join('\n')}
};
`,
);
console.log(`${Object.keys(history).length} zones written to ${OUT}`);
