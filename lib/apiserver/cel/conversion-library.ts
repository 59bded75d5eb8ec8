import { celFunc, CelFunc, celMethod, CelScalar, celType, celUint, CelUint, run } from '@bufbuild/cel';
import {
  goFormatFloatF,
  goFormatFloatG,
  goFormatRfc3339Nano,
  goParseBool,
  goParseFloat,
  goParseInt,
  goParseRfc3339,
  goParseUint,
  GoTime,
  MAX_UNIX_SECONDS,
  MIN_UNIX_SECONDS,
} from './go-conversions';
import { goParseDuration } from '../schema/go-duration';

const { BOOL, DOUBLE, INT, STRING, UINT } = CelScalar;
// `@bufbuild/cel` does not export its duration and timestamp types: taken from values of them
const DURATION = celType(run("duration('0s')", {}) as never);
const TIMESTAMP = celType(run("timestamp('1970-01-01T00:00:00Z')", {}) as never);

/** A duration or timestamp as `@bufbuild/cel` hands it to functions: the protobuf message behind a reflection. */
interface WrappedMessage {
  readonly message: { readonly seconds: bigint; readonly nanos: number };
}

const NANOS = 1_000_000_000n;

/** The offset each parsed timestamp was written with: Go keeps it (`string()` prints it), protobuf's Timestamp does not. */
const offsets = new WeakMap<object, number>();

function durationMessage(ns: bigint): object {
  return { $typeName: 'google.protobuf.Duration', seconds: ns / NANOS, nanos: Number(ns % NANOS) };
}

function nanosOf(v: unknown): bigint {
  const d = v as WrappedMessage;
  return d.message.seconds * NANOS + BigInt(d.message.nanos);
}

function timestampMessage(t: GoTime): object {
  const m = { $typeName: 'google.protobuf.Timestamp', seconds: t.seconds, nanos: t.nanos };
  if (t.offset !== 0) offsets.set(m, t.offset);
  return m;
}

const conversionError = (from: string, to: string) => new Error(`type conversion error from '${from}' to '${to}'`);

/** Go's float64 → int64 conversion (truncation) after cel-go's checked range. */
function truncToInt(x: number): bigint {
  return BigInt(Math.trunc(x));
}

/**
 * cel-go's conversions where `@bufbuild/cel`'s differ (same overload ids, so these replace its own): strings parsed as
 * `strconv` and `time` parse them, `string()` of doubles as `%g`, durations in nanoseconds (`int()`, `getHours()`…,
 * `string()` as `strconv.FormatFloat(d.Seconds(), 'f', -1)`), timestamps with the offset they were written with and
 * their accessors in UTC (the apiserver's `DefaultUTCTimeZone`).
 */
export const CONVERSION_FUNCTIONS: readonly CelFunc[] = [
  celFunc('int', [STRING], INT, (s) => {
    const n = goParseInt(s);
    if (n === undefined) throw conversionError('string', 'int');
    return n;
  }),
  celFunc('uint', [STRING], UINT, (s) => {
    const n = goParseUint(s);
    if (n === undefined) throw conversionError('string', 'uint');
    return celUint(n);
  }),
  celFunc('double', [STRING], DOUBLE, (s) => {
    const x = goParseFloat(s);
    if (x === undefined) throw conversionError('string', 'double');
    return x;
  }),
  celFunc('bool', [STRING], BOOL, (s) => {
    const b = goParseBool(s);
    if (b === undefined) throw conversionError('string', 'bool');
    return b;
  }),
  celFunc('string', [DOUBLE], STRING, (x) => goFormatFloatG(x)),
  celFunc('double', [UINT], DOUBLE, (x: CelUint) => Number(x.value)),
  celFunc('duration', [STRING], DURATION, (s) => {
    const ns = goParseDuration(s);
    if (ns === undefined) throw conversionError('string', 'google.protobuf.Duration');
    return durationMessage(ns) as never;
  }),
  celFunc('string', [DURATION], STRING, (v: unknown) => durationString(v)),
  celFunc('int', [DURATION], INT, (v: unknown) => nanosOf(v)),
  celMethod('getHours', DURATION, [], INT, function (this: unknown) {
    const ns = nanosOf(this);
    return truncToInt(Number(ns / 3_600_000_000_000n) + Number(ns % 3_600_000_000_000n) / 3.6e12);
  }),
  celMethod('getMinutes', DURATION, [], INT, function (this: unknown) {
    const ns = nanosOf(this);
    return truncToInt(Number(ns / 60_000_000_000n) + Number(ns % 60_000_000_000n) / 6e10);
  }),
  celMethod('getSeconds', DURATION, [], INT, function (this: unknown) {
    const ns = nanosOf(this);
    return truncToInt(Number(ns / NANOS) + Number(ns % NANOS) / 1e9);
  }),
  celMethod('getMilliseconds', DURATION, [], INT, function (this: unknown) {
    return nanosOf(this) / 1_000_000n;
  }),
  celFunc('timestamp', [STRING], TIMESTAMP, (s) => {
    const t = goParseRfc3339(s);
    if (t === undefined) throw conversionError('string', 'google.protobuf.Timestamp');
    if (t.seconds < MIN_UNIX_SECONDS || t.seconds > MAX_UNIX_SECONDS) throw new Error('timestamp overflow');
    return timestampMessage(t) as never;
  }),
  celFunc('timestamp', [INT], TIMESTAMP, (seconds) => {
    if (seconds < MIN_UNIX_SECONDS || seconds > MAX_UNIX_SECONDS) throw new Error('timestamp overflow');
    return timestampMessage({ seconds, nanos: 0, offset: 0 }) as never;
  }),
  celFunc('string', [TIMESTAMP], STRING, (v: unknown) => timestampString(v)),
  ...utcAccessors(),
];

/** cel-go's `string()` of a duration: `strconv.FormatFloat(d.Seconds(), 'f', -1, 64)` and `s`. */
export function durationString(v: unknown): string {
  const ns = nanosOf(v);
  return `${goFormatFloatF(Number(ns / NANOS) + Number(ns % NANOS) / 1e9)}s`;
}

/** cel-go's `string()` of a timestamp: RFC 3339 with nanoseconds, in the offset it was written with. */
export function timestampString(v: unknown): string {
  const t = v as WrappedMessage;
  return goFormatRfc3339Nano({
    seconds: t.message.seconds,
    nanos: t.message.nanos,
    offset: offsets.get(t.message) ?? 0,
  });
}

/** Whether `v` is a duration or a timestamp value (the protobuf message behind it). */
export function wellKnownKind(v: unknown): 'duration' | 'timestamp' | undefined {
  const name = (v as { message?: { $typeName?: string } } | null)?.message?.$typeName;
  return name === 'google.protobuf.Duration'
    ? 'duration'
    : name === 'google.protobuf.Timestamp'
      ? 'timestamp'
      : undefined;
}

/** The timestamp accessors without a time zone argument, in UTC (Go's date arithmetic, proleptic Gregorian). */
function utcAccessors(): CelFunc[] {
  const at = (t: WrappedMessage) => new Date(Number(t.message.seconds) * 1000);
  const dayOfYear = (d: Date) =>
    Math.floor(
      (d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1) + (d.getUTCFullYear() < 100 ? yearFix(d) : 0)) / 86_400_000,
    );
  const accessors: Array<[string, (d: Date, t: WrappedMessage) => number]> = [
    ['getFullYear', (d) => d.getUTCFullYear()],
    ['getMonth', (d) => d.getUTCMonth()],
    ['getDate', (d) => d.getUTCDate()],
    ['getDayOfMonth', (d) => d.getUTCDate() - 1],
    ['getDayOfWeek', (d) => d.getUTCDay()],
    ['getDayOfYear', dayOfYear],
    ['getHours', (d) => d.getUTCHours()],
    ['getMinutes', (d) => d.getUTCMinutes()],
    ['getSeconds', (d) => d.getUTCSeconds()],
    ['getMilliseconds', (_d, t) => Math.floor(t.message.nanos / 1e6)],
  ];
  return accessors.map(([name, f]) =>
    celMethod(name, TIMESTAMP, [], INT, function (this: unknown) {
      return BigInt(f(at(this as WrappedMessage), this as WrappedMessage));
    }),
  );
}

/** Date.UTC reads years 0–99 as 1900–1999: the difference back to the real year's first day. */
function yearFix(d: Date): number {
  const first = new Date(0);
  first.setUTCFullYear(d.getUTCFullYear(), 0, 1);
  return Date.UTC(d.getUTCFullYear(), 0, 1) - first.getTime();
}
