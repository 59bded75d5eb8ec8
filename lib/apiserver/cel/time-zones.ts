import { celFunc, CelFunc, CelInput, celMethod, CelScalar, isCelError, objectType, run } from '@bufbuild/cel';
import { TZ_HISTORY } from './tz-history';

const { INT, STRING } = CelScalar;
/** The timestamp type (`@bufbuild/cel` does not export it): the message type of a timestamp value. */
const TIMESTAMP = objectType((run("timestamp('1970-01-01T00:00:00Z')") as unknown as { desc: never }).desc);
const DURATION = objectType((run("duration('1s')") as unknown as { desc: never }).desc);

/**
 * `timestamp - duration`: cel-go adds the negated duration, and negating the smallest duration (-2^63 ns) overflows
 * (measured: `integer overflow` on 1.28, 1.32 and 1.36, where `@bufbuild/cel` computes a timestamp).
 */
export const TIMESTAMP_ARITHMETIC: readonly CelFunc[] = [
  celFunc('_-_', [TIMESTAMP, DURATION], TIMESTAMP, (t, d) => {
    const { seconds, nanos } = (d as unknown as TimestampValue).message;
    if (seconds * 1_000_000_000n + BigInt(nanos) === -(2n ** 63n)) throw new Error('integer overflow');
    const r = run('t - d', { t: t as CelInput, d: d as CelInput });
    if (isCelError(r)) throw new Error(r.message);
    return r as never;
  }),
];

/**
 * cel-go's timestamp getters with a time zone (`timestamp.getHours('America/New_York')`): the zone is resolved as
 * cel-go's `timeZone` does, a text with a colon as a fixed offset `hours:minutes` (each read by Go's `strconv.Atoi`,
 * so `+5:30` and `05:30` too), anything else through Go's `time.LoadLocation` (`''` and `UTC` are UTC, names are
 * case-sensitive tz database names; an IANA zone's rules come from the Intl API here, the tz database there, but for
 * the legacy zones `EST`, `EST5EDT`…, see `LEGACY_ZONES`, and the zones whose history ICU merged into others'
 * (Europe/Amsterdam into Brussels, Atlantic/Reykjavik into Abidjan…; the apiserver's tzdata, Debian's, is built with
 * backzone and keeps their own), see tz-history.ts).
 * Fields as Go's `time.Time` in that zone; `getMonth`, `getDayOfYear` and `getDayOfMonth` count from 0.
 */
export const TIME_ZONE_FUNCTIONS: readonly CelFunc[] = (
  [
    ['getFullYear', (t) => t.year],
    ['getMonth', (t) => t.month - 1],
    ['getDate', (t) => t.day],
    ['getDayOfMonth', (t) => t.day - 1],
    ['getDayOfWeek', (t) => t.weekday],
    ['getDayOfYear', (t) => t.yearDay - 1],
    ['getHours', (t) => t.hour],
    ['getMinutes', (t) => t.minute],
    ['getSeconds', (t) => t.second],
    ['getMilliseconds', (t) => Math.floor(t.nanos / 1e6)],
  ] as Array<[string, (t: ZonedTime) => number]>
).flatMap(([name, field]) => [
  celMethod(name, TIMESTAMP, [], INT, function () {
    return BigInt(field(zoned(this, 0)));
  }),
  celMethod(name, TIMESTAMP, [STRING], INT, function (tz: string) {
    return BigInt(field(zoned(this, offsetSeconds(tz, this))));
  }),
]);

interface ZonedTime {
  year: number;
  month: number;
  day: number;
  weekday: number;
  yearDay: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
}

interface TimestampValue {
  readonly message: { readonly seconds: bigint; readonly nanos: number };
}

function zoned(ts: unknown, offset: number): ZonedTime {
  const { seconds, nanos } = (ts as TimestampValue).message;
  const local = new Date(Number(seconds + BigInt(offset)) * 1000);
  const startOfYear = new Date(0);
  startOfYear.setUTCFullYear(local.getUTCFullYear(), 0, 1);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    weekday: local.getUTCDay(),
    yearDay: Math.floor((local.getTime() - startOfYear.getTime()) / 86_400_000) + 1,
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    nanos,
  };
}

/** The zone's offset east of UTC in seconds at the timestamp's instant, or Go's error. */
function offsetSeconds(tz: string, ts: unknown): number {
  const colon = tz.indexOf(':');
  if (colon >= 0) {
    const hours = goAtoi(tz.slice(0, colon));
    const minutes = goAtoi(tz.slice(colon + 1));
    return (tz[0] === '-' ? hours * 60 - minutes : hours * 60 + minutes) * 60;
  }
  if (tz === '' || tz === 'UTC') return 0;
  if (tz.includes('..') || tz[0] === '/' || tz[0] === '\\') throw new Error('time: invalid location name');
  if (!knownZone(tz)) throw new Error(`unknown time zone ${tz}`);
  const instant = Number((ts as TimestampValue).message.seconds) * 1000;
  return zoneOffset(tz, instant);
}

/** Go's `strconv.Atoi`: an optional sign and decimal digits. */
function goAtoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

const zones = new Map<string, Intl.DateTimeFormat | undefined>();

/**
 * Whether `name` names a zone of the tz database, as a file name there (case-sensitive; `Local` is the apiserver's
 * own zone, UTC in a cluster's containers).
 */
function knownZone(name: string): boolean {
  return formatter(name) !== undefined;
}

function formatter(name: string): Intl.DateTimeFormat | undefined {
  if (!zones.has(name)) {
    let f: Intl.DateTimeFormat | undefined;
    try {
      const zone = name === 'Local' ? 'UTC' : name;
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      const resolved = f.resolvedOptions().timeZone;
      // Intl accepts any case (`utc`, `america/new_york`); the tz database's file names do not
      if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) f = undefined;
      if (zone !== 'UTC' && !/[A-Z]/.test(zone[0])) f = undefined;
    } catch {
      f = undefined;
    }
    zones.set(name, f);
  }
  return zones.get(name);
}

/**
 * The tz database's legacy zones as the apiserver reads them (Debian's tzdata, which the apiserver's images and hosts
 * carry, keeps their pre-2024b definitions): `EST`, `MST`, `HST` fixed offsets, and `EST5EDT`… the standard offset with
 * the US daylight-saving rules. ICU (Node's Intl) makes them links to America/Panama, America/New_York and so on, whose
 * local mean time and city rules differ before 1967 (measured: `timestamp('1582-10-15T00:00:00Z').getHours('EST')`
 * is 19 on 1.28.15, 1.32.13 and 1.36.3, America/Panama's LMT gives 18). From 1967 the four rule zones' cities follow
 * the US rules, so Intl answers for them there.
 */
const LEGACY_ZONES: Record<string, { readonly standard: number; readonly usRulesAs?: string }> = {
  EST: { standard: -5 * 3600 },
  MST: { standard: -7 * 3600 },
  HST: { standard: -10 * 3600 },
  EST5EDT: { standard: -5 * 3600, usRulesAs: 'America/New_York' },
  CST6CDT: { standard: -6 * 3600, usRulesAs: 'America/Chicago' },
  MST7MDT: { standard: -7 * 3600, usRulesAs: 'America/Denver' },
  PST8PDT: { standard: -8 * 3600, usRulesAs: 'America/Los_Angeles' },
};

/** The US rules' daylight-saving periods before 1967 (tzdata's `Rule US`), each from and to 2:00 local time. */
const US_DST_BEFORE_1967: ReadonlyArray<
  readonly [from: readonly [number, number, number], to: readonly [number, number, number]]
> = [
  [
    [1918, 3, 31],
    [1918, 10, 27],
  ],
  [
    [1919, 3, 30],
    [1919, 10, 26],
  ],
  [
    [1942, 2, 9],
    [1945, 9, 30],
  ],
];

function legacyZoneOffset(zone: { readonly standard: number; readonly usRulesAs?: string }, instant: number): number {
  if (!zone.usRulesAs) return zone.standard;
  if (instant >= Date.UTC(1967, 0, 1)) return intlZoneOffset(zone.usRulesAs, instant);
  const daylight = US_DST_BEFORE_1967.some(
    ([[y1, m1, d1], [y2, m2, d2]]) =>
      instant >= Date.UTC(y1, m1 - 1, d1, 2) - zone.standard * 1000 &&
      instant < Date.UTC(y2, m2 - 1, d2, 2) - (zone.standard + 3600) * 1000,
  );
  return zone.standard + (daylight ? 3600 : 0);
}

/**
 * The offset east of UTC (seconds) of tz database zone `name` at `instant` (ms): the legacy zones as modelled above,
 * the zones whose history the apiserver's tzdata and ICU disagree on from Debian's data (TZ_HISTORY), else Intl.
 */
function zoneOffset(name: string, instant: number): number {
  const legacy = LEGACY_ZONES[name];
  if (legacy) return legacyZoneOffset(legacy, instant);
  const history = TZ_HISTORY[name];
  const seconds = Math.floor(instant / 1000);
  if (history && seconds < history[0]) {
    let offset = history[1];
    for (let i = 2; i < history.length && history[i] <= seconds; i += 2) offset = history[i + 1];
    return offset;
  }
  return intlZoneOffset(name, instant);
}

/** The offset east of UTC (seconds) of IANA zone `name` at `instant` (ms), from the wall clock Intl shows there. */
function intlZoneOffset(name: string, instant: number): number {
  const parts = Object.fromEntries(
    formatter(name)!
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  const floored = Math.floor(instant / 1000) * 1000;
  return Math.round((wall.getTime() - floored) / 1000);
}
