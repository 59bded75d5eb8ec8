import {
  celFunc,
  CelInput,
  isCelUint,
  celUint,
  isCelError,
  run,
  celList,
  celMap,
  CelMap,
  celMethod,
  CelScalar,
  isCelList,
  isCelMap,
  listType,
  CelFunc,
  CelValue,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { CelRuntime } from './cel-runtime';
import { CONVERSION_FUNCTIONS } from './conversion-library';
import { GoUrl } from './go-url';
import { Cidr, IpAddress } from './ip-address';
import { NAMED_FORMATS } from './named-formats';
import { Semver } from './semver';
import { stringsFunctions } from './strings-library';
import { TIMESTAMP_ARITHMETIC, TIME_ZONE_FUNCTIONS } from './time-zones';
import { compareCodePoints } from '../../apimachinery/field-value';
import { Quantity } from '../../apimachinery/quantity';
import { goRegExp, goRegexpError, GoRegexp } from '../schema/go-regexp';

const { BOOL, BYTES, DOUBLE, DYN, INT, STRING } = CelScalar;
const LIST = listType(DYN);

/**
 * Opaque Kubernetes values (Quantity, URL, IP, CIDR) travel through `@bufbuild/cel` as one-entry maps
 * keyed by their type name with a canonical text, so `==` compares them semantically; the parsed
 * value is kept beside the map.
 */
const opaqueValues = new WeakMap<object, Opaque>();
const OPAQUE_KEY = {
  Quantity: '@kubernetes.Quantity',
  URL: '@kubernetes.URL',
  IP: '@kubernetes.IP',
  CIDR: '@kubernetes.CIDR',
  Semver: '@kubernetes.Semver',
  Format: '@kubernetes.Format',
  Optional: '@optional',
} as const;

/** A named format of the `format` library. */
class NamedFormat {
  constructor(public readonly name: string) {}
}

/** An optional value (`optional.of(x)` / `optional.none()`). */
class OptionalValue {
  constructor(public readonly value: CelValue | undefined) {}
}

type Opaque = Quantity | GoUrl | IpAddress | Cidr | Semver | NamedFormat | OptionalValue;

function wrap(kind: keyof typeof OPAQUE_KEY, value: Opaque, canonical: string): CelMap {
  const m = celMap(new Map([[OPAQUE_KEY[kind], canonical]]));
  opaqueValues.set(m, value);
  return m;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any class (constructor) of the CEL runtime's values
function unwrap<T>(v: unknown, cls: Function & { prototype: T }, what: string): T {
  const inner = typeof v === 'object' && v !== null ? opaqueValues.get(v) : undefined;
  if (!(inner instanceof cls)) throw new Error(`no such overload: expected a ${what}`);
  return inner as T;
}

const quantity = (q: Quantity): CelMap => wrap('Quantity', q, q.canonical());
const asQuantity = (v: unknown): Quantity =>
  typeof v === 'bigint' ? Quantity.fromInt(v) : unwrap(v, Quantity, 'Quantity');
const ip = (a: IpAddress): CelMap => wrap('IP', a, a.toString());
const cidr = (c: Cidr): CelMap => wrap('CIDR', c, c.toString());

/** The order of isSorted/min/max: numbers by value, strings by code point as Go's strings.Compare. */
function compareValues(a: CelValue, b: CelValue): number {
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  const [m, n] = [numeric(a), numeric(b)];
  if (m !== undefined && n !== undefined) return m < n ? -1 : m > n ? 1 : 0;
  const x = typeof a === 'bigint' || typeof a === 'number' ? a : String(a);
  const y = typeof b === 'bigint' || typeof b === 'number' ? b : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function listValues(v: unknown): CelValue[] {
  if (!isCelList(v)) throw new Error('no such overload');
  return [...v];
}

function sameValue(a: CelValue, b: CelValue): boolean {
  if (isCelUint(a) && isCelUint(b)) return a.value === b.value;
  if (isCelMap(a) && isCelMap(b)) {
    return JSON.stringify([...a.entries()], bigintJson) === JSON.stringify([...b.entries()], bigintJson);
  }
  if (isCelList(a) && isCelList(b)) return JSON.stringify([...a], bigintJson) === JSON.stringify([...b], bigintJson);
  return a === b;
}

const bigintJson = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? `${v}n` : v);

function listFuncs(): CelFunc[] {
  return [
    celMethod('isSorted', LIST, [], BOOL, function () {
      const xs = listValues(this);
      return xs.every((x, i) => i === 0 || compareValues(xs[i - 1], x) <= 0);
    }),
    celMethod('sum', LIST, [], DYN, function () {
      const xs = listValues(this);
      if (xs.length === 0) return 0n;
      // the `+` of the element type (traits.Adder), overflow an error worded as cel-go's
      return xs.reduce((a, b) => {
        if (typeof a === 'bigint' && typeof b === 'bigint') {
          const c = a + b;
          if (c > 2n ** 63n - 1n || c < -(2n ** 63n)) throw new Error('integer overflow');
          return c as never;
        }
        if (isCelUint(a) && isCelUint(b)) {
          const c = a.value + b.value;
          if (c > 2n ** 64n - 1n) throw new Error('unsigned integer overflow');
          return celUint(c) as never;
        }
        if (typeof a === 'number' && typeof b === 'number') return (a + b) as never;
        const c = run('a + b', { a: a as CelInput, b: b as CelInput });
        if (isCelError(c)) throw new Error(c.message);
        return c as never;
      });
    }),
    celMethod('min', LIST, [], DYN, function () {
      const xs = listValues(this);
      if (xs.length === 0) throw new Error('min(list) argument must not be empty');
      return xs.reduce((a, b) => (compareValues(b, a) < 0 ? b : a)) as never;
    }),
    celMethod('max', LIST, [], DYN, function () {
      const xs = listValues(this);
      if (xs.length === 0) throw new Error('max(list) argument must not be empty');
      return xs.reduce((a, b) => (compareValues(b, a) > 0 ? b : a)) as never;
    }),
    celMethod('indexOf', LIST, [DYN], INT, function (x) {
      return BigInt(listValues(this).findIndex((v) => sameValue(v, x)));
    }),
    celMethod('lastIndexOf', LIST, [DYN], INT, function (x) {
      const xs = listValues(this);
      for (let i = xs.length - 1; i >= 0; i--) if (sameValue(xs[i], x)) return BigInt(i);
      return -1n;
    }),
    ...listsExtension(),
    celFunc('sets.contains', [LIST, LIST], BOOL, (a, b) => [...b].every((x) => [...a].some((y) => sameValue(x, y)))),
    celFunc(
      'sets.equivalent',
      [LIST, LIST],
      BOOL,
      (a, b) =>
        [...b].every((x) => [...a].some((y) => sameValue(x, y))) &&
        [...a].every((x) => [...b].some((y) => sameValue(x, y))),
    ),
    celFunc('sets.intersects', [LIST, LIST], BOOL, (a, b) => [...a].some((x) => [...b].some((y) => sameValue(x, y)))),
  ];
}

/**
 * cel-go's lists extension v3 (`ext.Lists(ext.ListsVersion(3))`, Kubernetes 1.35+) and the optional library's list
 * helpers (`first`, `last`, `optional.unwrap`): errors worded as cel-go's.
 */
function listsExtension(): CelFunc[] {
  const flatten = (xs: CelValue[], depth: number): CelValue[] =>
    xs.flatMap((x) => (isCelList(x) && depth > 0 ? flatten([...x], depth - 1) : [x]));
  return [
    celFunc('lists.range', [INT], LIST, (n) =>
      celList(Array.from({ length: n > 0n ? Number(n) : 0 }, (_x, i) => BigInt(i))),
    ),
    celMethod('slice', LIST, [INT, INT], LIST, function (start, end) {
      const xs = listValues(this);
      if (start < 0n || end < 0n) throw new Error(`cannot slice(${start}, ${end}), negative indexes not supported`);
      if (start > end) {
        throw new Error(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
      }
      if (end > BigInt(xs.length)) throw new Error(`cannot slice(${start}, ${end}), list is length ${xs.length}`);
      return celList(xs.slice(Number(start), Number(end)));
    }),
    celMethod('flatten', LIST, [], LIST, function () {
      return celList(flatten(listValues(this), 1));
    }),
    celMethod('flatten', LIST, [INT], LIST, function (depth) {
      if (depth < 0n) throw new Error('level must be non-negative');
      return celList(flatten(listValues(this), Number(depth > 1000n ? 1000n : depth)));
    }),
    celMethod('distinct', LIST, [], LIST, function () {
      const out: CelValue[] = [];
      for (const x of listValues(this)) if (!out.some((y) => celEquals(x, y))) out.push(x);
      return celList(out);
    }),
    celMethod('reverse', LIST, [], LIST, function () {
      return celList(listValues(this).reverse());
    }),
    celMethod('sort', LIST, [], LIST, function () {
      return celList(sortedByKeys(listValues(this), listValues(this)));
    }),
    celFunc('@sortByAssociatedKeys', [LIST, LIST], LIST, (xs, keys) => celList(sortedByKeys([...xs], [...keys]))),
    celMethod('first', LIST, [], DYN, function () {
      const xs = listValues(this);
      return optionalValue(xs.length > 0 ? (xs[0] as CelInput) : undefined);
    }),
    celMethod('last', LIST, [], DYN, function () {
      const xs = listValues(this);
      return optionalValue(xs.length > 0 ? (xs[xs.length - 1] as CelInput) : undefined);
    }),
    celFunc('optional.unwrap', [LIST], LIST, (xs) =>
      celList(
        [...xs].flatMap((x) => {
          const v = unwrap(x, OptionalValue, 'optional').value;
          return v === undefined ? [] : [v];
        }),
      ),
    ),
  ];
}

/** A stable sort of `xs` by `keys` (cel-go's sort and @sortByAssociatedKeys): keys of one orderable type. */
function sortedByKeys(xs: CelValue[], keys: CelValue[]): CelValue[] {
  const kinds = new Set(
    keys.map((k) =>
      typeof k === 'bigint' ? 'int' : typeof k === 'object' && k !== null ? (k as object).constructor.name : typeof k,
    ),
  );
  if (kinds.size > 1) throw new Error('list elements must have the same type');
  const order = keys.map((_k, i) => i).sort((a, b) => compareValues(keys[a], keys[b]) || a - b);
  return order.map((i) => xs[i]);
}

/** CEL equality for distinct(): numbers across int, uint and double by value, the rest as `sameValue`. */
function celEquals(a: CelValue, b: CelValue): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) {
    return typeof x === typeof y
      ? x === y
      : Number(x) === Number(y) && (typeof x === 'number' ? Number.isInteger(x) : Number.isInteger(y));
  }
  return sameValue(a, b);
}

/** An int or uint as a bigint, a double as a number; undefined for other values. */
function numeric(v: CelValue): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

function regexFuncs(): CelFunc[] {
  return [
    celMethod('find', STRING, [STRING], STRING, function (p) {
      return compileRegex(p).find(this) ?? '';
    }),
    celMethod('findAll', STRING, [STRING], celListOfString(), function (p) {
      return compileRegex(p).findAll(this);
    }),
    celMethod('findAll', STRING, [STRING, INT], celListOfString(), function (p, n) {
      return compileRegex(p).findAll(this, n < 0n ? -1 : Number(n > 2n ** 31n ? 2n ** 31n : n));
    }),
  ];
}

/** Kubernetes' regex library compiles with Go's regexp and fails the call with `Illegal regex`. */
function compileRegex(pattern: string): GoRegexp {
  const err = goRegexpError(pattern);
  if (err) throw new Error(`Illegal regex: ${err}`);
  return goRegExp(pattern);
}

function celListOfString() {
  return listType(STRING);
}

function quantityFuncs(): CelFunc[] {
  return [
    celFunc('quantity', [STRING], DYN, (s) => quantity(Quantity.parse(s))),
    celFunc('isQuantity', [STRING], BOOL, (s) => Quantity.isValid(s)),
    // a function, not a method, in Kubernetes' library: sign(quantity('1'))
    celFunc('sign', [DYN], INT, (q) => asQuantity(q).sign()),
    celMethod('isInteger', DYN, [], BOOL, function () {
      return asQuantity(this).isInteger();
    }),
    celMethod('asInteger', DYN, [], INT, function () {
      return asQuantity(this).asInteger();
    }),
    celMethod('asApproximateFloat', DYN, [], DOUBLE, function () {
      return asQuantity(this).asApproximateFloat();
    }),
    celMethod('add', DYN, [DYN], DYN, function (o) {
      return quantity(asQuantity(this).add(asQuantity(o)));
    }),
    celMethod('sub', DYN, [DYN], DYN, function (o) {
      return quantity(asQuantity(this).sub(asQuantity(o)));
    }),
    // shared with semver: both kinds compare with their own kind
    celMethod('isLessThan', DYN, [DYN], BOOL, function (o) {
      return compareOpaque(this, o) < 0n;
    }),
    celMethod('isGreaterThan', DYN, [DYN], BOOL, function (o) {
      return compareOpaque(this, o) > 0n;
    }),
    celMethod('compareTo', DYN, [DYN], INT, function (o) {
      return compareOpaque(this, o);
    }),
  ];
}

function compareOpaque(a: unknown, b: unknown): bigint {
  const inner = typeof a === 'object' && a !== null ? opaqueValues.get(a) : undefined;
  if (inner instanceof Semver) return inner.compareTo(unwrap(b, Semver, 'Semver'));
  return asQuantity(a).compareTo(asQuantity(b));
}

function semverFuncs(): CelFunc[] {
  const sv = (v: unknown): Semver => unwrap(v, Semver, 'Semver');
  const semver = (x: Semver): CelMap => wrap('Semver', x, x.toString());
  return [
    celFunc('isSemver', [STRING], BOOL, (s) => Semver.isValid(s)),
    celFunc('isSemver', [STRING, BOOL], BOOL, (s, normalize) => Semver.isValid(s, normalize)),
    celFunc('semver', [STRING], DYN, (s) => semver(Semver.parse(s))),
    celFunc('semver', [STRING, BOOL], DYN, (s, normalize) => semver(Semver.parse(s, normalize))),
    celMethod('major', DYN, [], INT, function () {
      return sv(this).major;
    }),
    celMethod('minor', DYN, [], INT, function () {
      return sv(this).minor;
    }),
    celMethod('patch', DYN, [], INT, function () {
      return sv(this).patch;
    }),
  ];
}

/** An optional value as rules see it: `optional.of(v)`, or `optional.none()` for undefined (e.g. `oldSelf` with optionalOldSelf). */
export function optionalValue(v: CelInput | undefined): CelMap {
  return v === undefined
    ? wrap('Optional', new OptionalValue(undefined), 'none')
    : wrap('Optional', new OptionalValue(v as CelValue), `some:${JSON.stringify(v, bigintJson)}`);
}

/** The value an optional access applies to: the optional's value (undefined for none), or the value itself. */
function optionalTarget(v: unknown): unknown {
  const inner = typeof v === 'object' && v !== null ? opaqueValues.get(v) : undefined;
  if (!(inner instanceof OptionalValue)) return v;
  const value: unknown = inner.value;
  if (value instanceof Map) return celMap(value);
  if (Array.isArray(value)) return celList(value);
  return value;
}

function formatFuncs(runtime: CelRuntime): CelFunc[] {
  const none = () => optionalValue(undefined);
  const some = (v: CelValue) => optionalValue(v);
  const opt = (v: unknown): OptionalValue => unwrap(v, OptionalValue, 'optional');
  const format = (name: string) => wrap('Format', new NamedFormat(name), name);
  const isZero = (v: CelValue) =>
    v === '' ||
    v === 0n ||
    v === 0 ||
    v === false ||
    v === null ||
    (isCelList(v) && v.size === 0) ||
    (isCelMap(v) && v.size === 0);
  return [
    ...Object.keys(NAMED_FORMATS).map((name) => celFunc(`format.${name}`, [], DYN, () => format(name))),
    celFunc('format.named', [STRING], DYN, (name) => (name in NAMED_FORMATS ? some(format(name)) : none())),
    celMethod('validate', DYN, [STRING], DYN, function (value) {
      const errors = NAMED_FORMATS[unwrap(this, NamedFormat, 'format').name](value, runtime.version);
      return errors.length ? some(celList(errors)) : none();
    }),
    celFunc('optional.of', [DYN], DYN, (v) => some(v)),
    celFunc('optional.ofNonZeroValue', [DYN], DYN, (v) => (isZero(v) ? none() : some(v))),
    celFunc('optional.none', [], DYN, () => none()),
    celMethod('hasValue', DYN, [], BOOL, function () {
      return opt(this).value !== undefined;
    }),
    celMethod('value', DYN, [], DYN, function () {
      const v = opt(this).value;
      if (v === undefined) throw new Error('optional.none() dereference');
      return v as never;
    }),
    celMethod('orValue', DYN, [DYN], DYN, function (d) {
      return (opt(this).value ?? d) as never;
    }),
    // the rewritten optional syntax (`x.?f`, `x[?k]`, see optional-syntax.ts)
    ...['__optSelect__', '__optChainSelect__'].map((name) =>
      celMethod(name, DYN, [STRING], DYN, function (field) {
        const on = optionalTarget(this);
        if (on === undefined) return none();
        if (!isCelMap(on)) throw new Error('no such overload');
        return on.has(field) ? some(on.get(field)!) : none();
      }),
    ),
    celFunc('__optList__', [LIST, LIST], LIST, (elements, indices) => {
      const optional = new Set([...indices].map(Number));
      return celList(
        [...elements].flatMap((x, k) => {
          if (!optional.has(k)) return [x];
          const v = opt(x).value;
          return v === undefined ? [] : [v];
        }),
      );
    }),
    celMethod('__optIndex__', DYN, [DYN], DYN, function (key) {
      const on = optionalTarget(this);
      if (on === undefined) return none();
      if (isCelMap(on)) return on.has(key as string) ? some(on.get(key as string)!) : none();
      if (isCelList(on)) {
        const i = Number(key);
        return i >= 0 && i < on.size ? some(on.get(i)!) : none();
      }
      throw new Error('no such overload');
    }),
  ];
}

function urlFuncs(runtime: CelRuntime): CelFunc[] {
  const u = (v: unknown): GoUrl => unwrap(v, GoUrl, 'URL');
  return [
    celFunc('url', [STRING], DYN, (s) => {
      const parsed = GoUrl.parse(s, runtime.strictUrlHosts);
      return wrap('URL', parsed, parsed.canonical());
    }),
    celFunc('isURL', [STRING], BOOL, (s) => GoUrl.isValid(s, runtime.strictUrlHosts)),
    celMethod('getScheme', DYN, [], STRING, function () {
      return u(this).scheme;
    }),
    celMethod('getHost', DYN, [], STRING, function () {
      return u(this).host;
    }),
    celMethod('getHostname', DYN, [], STRING, function () {
      return u(this).hostname();
    }),
    celMethod('getPort', DYN, [], STRING, function () {
      return u(this).port();
    }),
    celMethod('getEscapedPath', DYN, [], STRING, function () {
      return u(this).escapedPath();
    }),
    celMethod('getQuery', DYN, [], DYN, function () {
      return celMap(new Map([...u(this).query()].map(([k, v]) => [k, celList(v)])));
    }),
  ];
}

function ipFuncs(): CelFunc[] {
  const addr = (v: unknown): IpAddress => unwrap(v, IpAddress, 'IP');
  const net = (v: unknown): Cidr => unwrap(v, Cidr, 'CIDR');
  const ipArg = (v: unknown): IpAddress => (typeof v === 'string' ? IpAddress.parse(v) : addr(v));
  const cidrArg = (v: unknown): Cidr => (typeof v === 'string' ? Cidr.parse(v) : net(v));
  return [
    celFunc('isIP', [STRING], BOOL, (s) => IpAddress.isValid(s)),
    celFunc('ip', [STRING], DYN, (s) => ip(IpAddress.parse(s))),
    celFunc('ip.isCanonical', [STRING], BOOL, (s) => IpAddress.parse(s).toString() === s),
    celMethod('family', DYN, [], INT, function () {
      return BigInt(addr(this).family);
    }),
    celMethod('isUnspecified', DYN, [], BOOL, function () {
      return addr(this).isUnspecified();
    }),
    celMethod('isLoopback', DYN, [], BOOL, function () {
      return addr(this).isLoopback();
    }),
    celMethod('isLinkLocalMulticast', DYN, [], BOOL, function () {
      return addr(this).isLinkLocalMulticast();
    }),
    celMethod('isLinkLocalUnicast', DYN, [], BOOL, function () {
      return addr(this).isLinkLocalUnicast();
    }),
    celMethod('isGlobalUnicast', DYN, [], BOOL, function () {
      return addr(this).isGlobalUnicast();
    }),
    celFunc('isCIDR', [STRING], BOOL, (s) => Cidr.isValid(s)),
    celFunc('cidr', [STRING], DYN, (s) => cidr(Cidr.parse(s))),
    celMethod('containsIP', DYN, [DYN], BOOL, function (o) {
      return net(this).containsIp(ipArg(o));
    }),
    celMethod('containsCIDR', DYN, [DYN], BOOL, function (o) {
      return net(this).containsCidr(cidrArg(o));
    }),
    celMethod('ip', DYN, [], DYN, function () {
      return ip(net(this).ip);
    }),
    celMethod('masked', DYN, [], DYN, function () {
      return cidr(net(this).masked());
    }),
    celMethod('prefixLength', DYN, [], INT, function () {
      return BigInt(net(this).prefixLength);
    }),
    celFunc('string', [DYN], STRING, (v) => {
      const inner = typeof v === 'object' && v !== null ? opaqueValues.get(v) : undefined;
      if (inner instanceof IpAddress || inner instanceof Cidr) return inner.toString();
      throw new Error('no such overload');
    }),
  ];
}

function encoderFuncs(): CelFunc[] {
  return [
    celFunc('base64.encode', [BYTES], STRING, (b) => Buffer.from(b).toString('base64')),
    celFunc('base64.decode', [STRING], BYTES, (s) => {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) throw new Error(`illegal base64 data: ${s}`);
      return new Uint8Array(Buffer.from(s, 'base64'));
    }),
  ];
}

/** Helpers of the expanded two-variable comprehensions (see macros.ts); `@` names cannot be written in a rule. */
function comprehensionHelpers(): CelFunc[] {
  return [
    celFunc('@pairs', [DYN], DYN, (on) => {
      if (isCelList(on)) return celList([...on].map((v, i) => celList([BigInt(i), v])));
      if (isCelMap(on)) return celList([...on.entries()].map(([k, v]) => celList([k, v])));
      throw new Error('no such overload');
    }),
    celFunc('@pairsToMap', [LIST], DYN, (pairs) =>
      celMap(
        new Map(
          [...pairs].map((p) => {
            const [k, v] = [...(p as Iterable<CelValue>)];
            return [k as string, v];
          }),
        ),
      ),
    ),
    celFunc('@mergeMaps', [LIST], DYN, (maps) => {
      const out = new Map<string, CelValue>();
      for (const m of maps) {
        if (!isCelMap(m)) throw new Error('transformMapEntry expression must return a map');
        for (const [k, v] of m.entries()) {
          if (out.has(k as string)) throw new Error(`insert failed: key ${String(k)} already exists`);
          out.set(k as string, v);
        }
      }
      return celMap(out);
    }),
  ];
}

/**
 * The functions rules can call at evaluation time beyond `@bufbuild/cel`'s standard library:
 * cel-go's conversions where the two differ, its strings extension, the base64 encoders, optional values and the Kubernetes lists, sets, regex, quantity, semver, format, URL, IP and CIDR libraries.
 */
export function kubernetesFunctions(runtime: CelRuntime): CelFunc[] {
  return [
    ...CONVERSION_FUNCTIONS,
    ...strings,
    ...stringsFunctions(runtime),
    ...TIME_ZONE_FUNCTIONS,
    ...TIMESTAMP_ARITHMETIC,
    ...listFuncs(),
    ...regexFuncs(),
    ...quantityFuncs(),
    ...urlFuncs(runtime),
    ...ipFuncs(),
    ...encoderFuncs(),
    ...semverFuncs(),
    ...formatFuncs(runtime),
    ...comprehensionHelpers(),
  ];
}
