import { RE2JS } from 're2js';

/**
 * Go's `regexp` package, as the apiserver runs schema `pattern`s (`regexp.MatchString`: an unanchored search)
 * and CEL's `find`/`findAll`: re2js, a port of RE2/J, itself a port of Go's regexp. Syntax, character classes
 * (`\s` is `[\t\n\f\r ]`, `.` matches `\r` and U+2028), inline flags, POSIX and Unicode classes and the refusals
 * (lookaround, backreferences, repeat counts over 1000) are Go's, not JavaScript's.
 * Checked against the real apiserver on generated strings (test/apiserver/pattern-differential.test.ts).
 *
 * @internal
 */
export interface GoRegexp {
  /** Whether the pattern matches anywhere in `text` (`MatchString`). */
  test(text: string): boolean;
  /** The leftmost match, or undefined (`FindString` with a found/not found distinction). */
  find(text: string): string | undefined;
  /** Successive non-overlapping matches, at most `n` when `n >= 0` (`FindAllString`). */
  findAll(text: string, n?: number): string[];
}

/**
 * Whether `pattern` compiles as a Go regular expression (`regexp.Compile`). Returns Go's error text
 * (`error parsing regexp: …`), or undefined when the pattern is valid.
 *
 * @internal
 */
export function goRegexpError(pattern: string): string | undefined {
  const compiled = compile(pattern);
  return compiled instanceof Error ? compiled.message : undefined;
}

/**
 * The compiled Go regular expression; throws Go's parse error for an invalid pattern. Cached by pattern:
 * CRDs repeat theirs (names, quantities, durations) in every version and type.
 *
 * @internal
 */
export function goRegExp(pattern: string): GoRegexp {
  const compiled = compile(pattern);
  if (compiled instanceof Error) throw compiled;
  return compiled;
}

const cache = new Map<string, GoRegexp | Error>();
const CACHE_LIMIT = 10_000;

function compile(pattern: string): GoRegexp | Error {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    entry = compileUncached(pattern);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, entry);
  }
  return entry;
}

function compileUncached(pattern: string): GoRegexp | Error {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    return new Error((e as Error).message);
  }
  return {
    test: (text) => re.matcher(text).find(),
    find: (text) => {
      const m = re.matcher(text);
      return m.find() ? (m.group() ?? '') : undefined;
    },
    findAll: (text, n = -1) => {
      // Go's allMatches: an empty match right where the previous match ended is skipped, and the search
      // moves on by one character after an empty match
      const out: string[] = [];
      const m = re.matcher(text);
      for (let pos = 0, prevEnd = -1; (n < 0 || out.length < n) && pos <= text.length;) {
        if (!m.find(pos)) break;
        const start = m.start();
        const end = m.end();
        let accept = true;
        if (end === pos) {
          if (start === prevEnd) accept = false;
          pos += codePointLength(text, pos) || 1;
        } else {
          pos = end;
        }
        prevEnd = end;
        if (accept) out.push(text.slice(start, end));
      }
      return out;
    },
  };
}

function codePointLength(text: string, at: number): number {
  if (at >= text.length) return 0;
  const cp = text.codePointAt(at)!;
  return cp > 0xffff ? 2 : 1;
}
