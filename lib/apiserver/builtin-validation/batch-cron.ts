/*
 * The CronJob schedule parser of the apiserver: robfig/cron v3's `ParseStandard` (five fields: minute, hour, day of
 * month, month, day of week; or a descriptor `@hourly`, `@every 1h30m`; an optional `TZ=`/`CRON_TZ=` prefix), with its
 * error messages word for word. Only whether and why it fails matters here: the schedule itself is not computed.
 */

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** The five fields' bounds, in order (the parser's implicit seconds field is always `0`). */
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/**
 * Why `ParseStandard(spec)` fails, in its words, or undefined when it parses. The time zone of a `TZ=` prefix is
 * looked up by `knownZone`.
 *
 * @internal
 */
export function cronParseError(spec: string, knownZone: (name: string) => string | undefined): string | undefined {
  if (spec.length === 0) return 'empty spec string';
  let rest = spec;
  if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
    const space = rest.indexOf(' ');
    // without a space, the parser's slice panics: the apiserver refuses it all the same
    const zone = rest.slice(rest.indexOf('=') + 1, space < 0 ? undefined : space);
    const zoneError = knownZone(zone);
    if (zoneError) return `provided bad location ${zone}: ${zoneError}`;
    rest = space < 0 ? '' : rest.slice(space).trim();
  }
  if (rest.startsWith('@')) return descriptorError(rest);
  const fields = rest.split(/[ \t\n\v\f\r\u0085\u00a0]+/).filter((f) => f !== '');
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  for (let i = 0; i < 5; i++) {
    const err = fieldError(fields[i], FIELDS[i]);
    if (err) return err;
  }
  return undefined;
}

function descriptorError(descriptor: string): string | undefined {
  if (DESCRIPTORS.includes(descriptor)) return undefined;
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const err = durationError(descriptor.slice(every.length));
    return err ? `failed to parse duration ${descriptor}: ${err}` : undefined;
  }
  return `unrecognized descriptor: ${descriptor}`;
}

/** `getField`: comma-separated ranges (empty ones skipped, as strings.FieldsFunc does). */
function fieldError(field: string, bounds: Bounds): string | undefined {
  for (const expr of field.split(',').filter((e) => e !== '')) {
    const err = rangeError(expr, bounds);
    if (err) return err;
  }
  return undefined;
}

/** `getRange`: `*`, `?`, `n`, `a-b`, each with an optional `/step`. */
function rangeError(expr: string, r: Bounds): string | undefined {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    const low = intOrName(lowAndHigh[0], r.names);
    if (typeof low === 'string') return low;
    start = low;
    if (lowAndHigh.length === 1) {
      end = start;
    } else if (lowAndHigh.length === 2) {
      const high = intOrName(lowAndHigh[1], r.names);
      if (typeof high === 'string') return high;
      end = high;
    } else {
      return `too many hyphens: ${expr}`;
    }
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = positiveInt(rangeAndStep[1]);
    if (typeof parsed === 'string') return parsed;
    step = parsed;
    // `n/step` means `n-max/step`
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) {
    return `too many slashes: ${expr}`;
  }
  if (start < r.min) return `beginning of range (${start}) below minimum (${r.min}): ${expr}`;
  if (end > r.max) return `end of range (${end}) above maximum (${r.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return undefined;
}

function intOrName(expr: string, names?: Readonly<Record<string, number>>): number | string {
  const named = names?.[expr.toLowerCase()];
  return named ?? positiveInt(expr);
}

/** `mustParseInt`: Go's `strconv.Atoi`, then no negative numbers. */
function positiveInt(expr: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(expr)) {
    return `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`;
  }
  const n = Number(expr);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) {
    return `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: value out of range`;
  }
  return n < 0 ? `negative number (${n}) not allowed: ${expr}` : n;
}

const UNITS = ['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h'];

/** Why Go's `time.ParseDuration` refuses `text` (overflow aside), or undefined. */
function durationError(text: string): string | undefined {
  const invalidDuration = `time: invalid duration ${goQuote(text)}`;
  let s = text.replace(/^[-+]/, '');
  if (s === '0') return undefined;
  if (s === '') return invalidDuration;
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) return invalidDuration;
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    if (m[1] === '' && (m[2] ?? '') === '') return invalidDuration;
    s = s.slice(m[0].length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === '') return `time: missing unit in duration ${goQuote(text)}`;
    if (!UNITS.includes(unit)) return `time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}`;
    s = s.slice(unit.length);
  }
  return undefined;
}

/** Go's `%q`/`strconv.Quote` of printable text. */
function goQuote(text: string): string {
  return JSON.stringify(text);
}
