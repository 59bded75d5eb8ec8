/**
 * Whether a `pattern` compiles as a Go (RE2) regular expression, the dialect the apiserver uses.
 * Approximated with JavaScript's engine after translating the RE2-only syntax (inline flags,
 * `(?P<name>`, `\A`, `\z`, POSIX classes); constructs RE2 rejects (lookaround, backreferences)
 * are reported. Returns the error text, or undefined when the pattern is valid.
 *
 * @internal
 */
export function goRegexpError(pattern: string): string | undefined {
  // CRDs repeat their patterns (names, quantities, durations) in every version and type: each is judged once
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  const verdict = judgeGoRegexp(pattern);
  if (verdicts.size >= VERDICT_CACHE_LIMIT) verdicts.clear();
  verdicts.set(pattern, verdict);
  return verdict;
}

const verdicts = new Map<string, string | undefined>();
const VERDICT_CACHE_LIMIT = 10_000;

function judgeGoRegexp(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return 'invalid or unsupported Perl syntax: lookahead/lookbehind is not supported by RE2';
  if (/(^|[^\\])(\\\\)*\\[1-9]/.test(pattern)) return 'invalid escape sequence: backreferences are not supported by RE2';
  const js = pattern
    .replace(/\(\?[imsU]*(-[imsU]+)?\)/g, '')
    .replace(/\(\?[imsU]*(-[imsU]+)?:/g, '(?:')
    .replace(/\[:\^?[a-z]+:\]/g, 'a');
  try {
    new RegExp(translate(js).source);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

const cache = new Map<string, RegExp>();

/**
 * A JavaScript RegExp for a Go (RE2) pattern as schemas and CEL use them: a leading `(?i)`/`(?s)`/`(?m)`
 * becomes a flag, `(?P<name>` a named group, `\A` / `\z` anchors. Cached; `global` adds the `g` flag.
 *
 * @internal
 */
export function goRegExp(pattern: string, global = false): RegExp {
  const key = `${global ? 'g' : ''}:${pattern}`;
  let re = cache.get(key);
  if (!re) {
    const { source, flags } = translate(pattern);
    try {
      re = new RegExp(source, flags + (global ? 'g' : ''));
    } catch {
      re = new RegExp(source, flags.replace('u', '') + (global ? 'g' : ''));
    }
    cache.set(key, re);
  }
  return re;
}

function translate(pattern: string): { source: string; flags: string } {
  // JavaScript has no inline flags: lift RE2's `(?i)` / `(?i:` to whole-pattern flags (an approximation
  // only when a flag is meant for part of the pattern, which schema patterns rarely do).
  const lifted = new Set<string>();
  const source = pattern
    .replace(/\(\?([ims]+)\)/g, (_m, f: string) => { for (const c of f) lifted.add(c); return ''; })
    .replace(/\(\?([ims]+):/g, (_m, f: string) => { for (const c of f) lifted.add(c); return '(?:'; })
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$');
  return { source, flags: `u${[...lifted].join('')}` };
}
