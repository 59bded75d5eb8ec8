/**
 * Whether a `pattern` compiles as a Go (RE2) regular expression, the dialect the apiserver uses.
 * Approximated with JavaScript's engine after translating the RE2-only syntax (inline flags,
 * `(?P<name>`, `\A`, `\z`, POSIX classes); constructs RE2 rejects (lookaround, backreferences)
 * are reported. Returns the error text, or undefined when the pattern is valid.
 */
export function goRegexpError(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return 'invalid or unsupported Perl syntax: lookahead/lookbehind is not supported by RE2';
  if (/(^|[^\\])(\\\\)*\\[1-9]/.test(pattern)) return 'invalid escape sequence: backreferences are not supported by RE2';
  const js = pattern
    .replace(/\(\?[imsU]*(-[imsU]+)?\)/g, '')
    .replace(/\(\?[imsU]*(-[imsU]+)?:/g, '(?:')
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$')
    .replace(/\[:\^?[a-z]+:\]/g, 'a');
  try {
    new RegExp(js);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
