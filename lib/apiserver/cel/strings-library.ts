import { celFunc, CelFunc, celList, celMethod, CelScalar, listType } from '@bufbuild/cel';
import { CelRuntime } from './cel-runtime';
import { celFormat } from './string-format';
import { compareCodePoints } from '../../apimachinery/field-value';

const { BOOL, INT, STRING } = CelScalar;

/**
 * cel-go's strings extension (version 2, as Kubernetes 1.29+ has it) where `@bufbuild/cel`'s differs: positions count
 * code points (runes), not UTF-16 units; `replace` and `split` are Go's `strings.Replace`/`SplitN` (a negative count
 * means all, an empty separator splits between runes); `strings.quote` escapes only what cel-go escapes; `format()`
 * is cel-go's (string-format.ts); and strings order by code point, as Go compares their UTF-8 bytes. Same overload
 * ids, so these replace `@bufbuild/cel`'s.
 */
export function stringsFunctions(runtime: CelRuntime): CelFunc[] {
  return [
    celMethod('charAt', STRING, [INT], STRING, function (index) {
      const runes = [...this];
      const i = Number(index);
      if (i < 0 || i > runes.length) throw outOfRange(index);
      return i === runes.length ? '' : runes[i];
    }),
    celMethod('indexOf', STRING, [STRING], INT, function (sub) {
      return indexOf(this, sub, 0n, runtime);
    }),
    celMethod('indexOf', STRING, [STRING, INT], INT, function (sub, offset) {
      return indexOf(this, sub, offset, runtime);
    }),
    celMethod('lastIndexOf', STRING, [STRING], INT, function (sub) {
      const n = [...this].length;
      if (sub === '') return BigInt(n);
      if (runtime.lastIndexOfShorterNotFound && Buffer.byteLength(this) < Buffer.byteLength(sub)) return -1n;
      return lastIndexOf(this, sub, BigInt(n - 1), runtime);
    }),
    celMethod('lastIndexOf', STRING, [STRING, INT], INT, function (sub, offset) {
      return lastIndexOf(this, sub, offset, runtime);
    }),
    celMethod('substring', STRING, [INT], STRING, function (start) {
      const runes = [...this];
      if (start < 0n || start > BigInt(runes.length)) throw outOfRange(start);
      return runes.slice(Number(start)).join('');
    }),
    celMethod('substring', STRING, [INT, INT], STRING, function (start, end) {
      const runes = [...this];
      if (start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
      if (start < 0n || start > BigInt(runes.length)) throw outOfRange(start);
      if (end < 0n || end > BigInt(runes.length)) throw outOfRange(end);
      return runes.slice(Number(start), Number(end)).join('');
    }),
    celMethod('replace', STRING, [STRING, STRING], STRING, function (old, replacement) {
      return goReplace(this, old, replacement, -1);
    }),
    celMethod('replace', STRING, [STRING, STRING, INT], STRING, function (old, replacement, n) {
      return goReplace(this, old, replacement, clampInt(n));
    }),
    celMethod('split', STRING, [STRING], listType(STRING), function (sep) {
      return celList(goSplitN(this, sep, -1));
    }),
    celMethod('split', STRING, [STRING, INT], listType(STRING), function (sep, n) {
      return celList(goSplitN(this, sep, clampInt(n)));
    }),
    celFunc('strings.quote', [STRING], STRING, (s) => quote(s)),
    celMethod('format', STRING, [listType(CelScalar.DYN)], STRING, function (args) {
      return celFormat(this, [...args], runtime);
    }),
    celFunc('_<_', [STRING, STRING], BOOL, (a, b) => compareCodePoints(a, b) < 0),
    celFunc('_<=_', [STRING, STRING], BOOL, (a, b) => compareCodePoints(a, b) <= 0),
    celFunc('_>_', [STRING, STRING], BOOL, (a, b) => compareCodePoints(a, b) > 0),
    celFunc('_>=_', [STRING, STRING], BOOL, (a, b) => compareCodePoints(a, b) >= 0),
  ];
}

const outOfRange = (i: bigint | number) => new Error(`index out of range: ${i}`);

/** A count as Go's int: beyond the safe range it is as good as infinite either way. */
function clampInt(n: bigint): number {
  return Number(n > 2n ** 53n ? 2n ** 53n : n < -(2n ** 53n) ? -(2n ** 53n) : n);
}

/** cel-go's `indexOfOffset`: an offset at or past the end is -1, or out of range before cel-go v0.22 (1.28). */
function indexOf(str: string, sub: string, offset: bigint, runtime: CelRuntime): bigint {
  if (sub === '') return offset;
  if (offset < 0n) throw outOfRange(offset);
  const runes = [...str];
  const subRunes = [...sub];
  if (offset >= BigInt(runes.length)) {
    if (!runtime.offsetPastEndNotFound) throw outOfRange(offset);
    return -1n;
  }
  for (let i = Number(offset); i < runes.length - (subRunes.length - 1); i++) {
    if (subRunes.every((r, j) => runes[i + j] === r)) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(str: string, sub: string, offset: bigint, runtime: CelRuntime): bigint {
  if (sub === '') return offset;
  if (offset < 0n) throw outOfRange(offset);
  const runes = [...str];
  const subRunes = [...sub];
  if (offset >= BigInt(runes.length)) {
    if (!runtime.offsetPastEndNotFound) throw outOfRange(offset);
    return -1n;
  }
  let off = Number(offset);
  if (off > runes.length - subRunes.length) off = runes.length - subRunes.length;
  for (let i = off; i >= 0; i--) {
    if (subRunes.every((r, j) => runes[i + j] === r)) return BigInt(i);
  }
  return -1n;
}

/** Go's `strings.Replace(s, old, new, n)`: n < 0 replaces all; an empty `old` matches before every rune and at the end. */
function goReplace(s: string, old: string, replacement: string, n: number): string {
  if (old === replacement || n === 0) return s;
  if (old === '') {
    const runes = [...s];
    const count = n < 0 ? runes.length + 1 : Math.min(n, runes.length + 1);
    let out = '';
    for (let i = 0; i < runes.length; i++) out += (i < count ? replacement : '') + runes[i];
    return out + (count > runes.length ? replacement : '');
  }
  const parts = s.split(old);
  if (n < 0 || n >= parts.length - 1) return parts.join(replacement);
  return parts.slice(0, n + 1).join(replacement) + old + parts.slice(n + 1).join(old);
}

/** Go's `strings.SplitN`: n == 0 none, n < 0 all, else at most n pieces, the last holding the rest; "" splits runes. */
function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const runes = [...s];
    if (n < 0 || n >= runes.length) return runes;
    return [...runes.slice(0, n - 1), runes.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || n >= parts.length) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

const QUOTED: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** cel-go's `strings.quote`: those nine escaped, everything else (NUL, other controls, non-ASCII) as is. */
function quote(s: string): string {
  return `"${[...s].map((c) => QUOTED[c] ?? c).join('')}"`;
}
