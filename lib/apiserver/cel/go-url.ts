import { goRequestUriError } from '../schema/go-request-uri';

/**
 * A URL as the Kubernetes CEL `url()` library holds it: checked with Go's `url.ParseRequestURI` (an absolute URI or
 * an absolute path; `#` is no fragment there), then parsed again with `url.Parse` (fragment cut off, `//host` read
 * as an authority even without a scheme), whose fields the getters return.
 *
 * @internal
 */
export class GoUrl {
  /**
   * `url(s)`: throws the library's conversion error where `ParseRequestURI` or `Parse` refuses `s` (`strict`: Go
   * 1.25's host checks, APISERVER_CHANGES.strictBracketedHosts).
   */
  public static parse(text: string, strict = false): GoUrl {
    const error = goRequestUriError(text, strict) ?? parseError(text);
    if (error !== undefined) {
      throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(text)}: ${error}`);
    }
    return parse(text);
  }

  /** `isURL(s)`: `ParseRequestURI` alone. */
  public static isValid(text: string, strict = false): boolean {
    return goRequestUriError(text, strict) === undefined;
  }

  constructor(
    public readonly scheme: string,
    public readonly opaque: string,
    /** The host as Go keeps it: `%`-escapes decoded, port included. */
    public readonly host: string,
    public readonly path: string,
    public readonly rawPath: string,
    public readonly rawQuery: string,
    public readonly forceQuery: boolean,
    public readonly fragment: string,
    public readonly userinfo: string | undefined,
  ) {}

  /** `URL.Hostname()`: the host without port and brackets. */
  public hostname(): string {
    return splitHostPort(this.host).host;
  }

  /** `URL.Port()`. */
  public port(): string {
    return splitHostPort(this.host).port;
  }

  /** `URL.EscapedPath()`: the path as written when that is a valid encoding of it, else Go's escaping of it. */
  public escapedPath(): string {
    if (this.rawPath !== '' && validEncodedPath(this.rawPath) && unescape(this.rawPath, 'path') === this.path) {
      return this.rawPath;
    }
    if (this.path === '*') return '*';
    return escape(this.path, 'path');
  }

  /** `URL.Query()`: `ParseQuery` of the raw query, pairs with `;` or bad escapes skipped, `+` as space. */
  public query(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const pair of this.rawQuery.split('&')) {
      if (pair === '' || pair.includes(';')) continue;
      const eq = pair.indexOf('=');
      const [k, v] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
      const key = unescape(k, 'query');
      const value = unescape(v, 'query');
      if (key === undefined || value === undefined) continue;
      out.set(key, [...(out.get(key) ?? []), value]);
    }
    return out;
  }

  /** A text equal for URLs whose Go `String()` is equal (what the library's `==` compares). */
  public canonical(): string {
    return JSON.stringify([
      this.scheme,
      this.opaque,
      this.userinfo ?? null,
      this.host,
      this.escapedPath(),
      this.forceQuery || this.rawQuery !== '' ? this.rawQuery : null,
      this.fragment,
    ]);
  }
}

type Mode = 'path' | 'query' | 'fragment' | 'host';

/** `url.Parse`'s own refusals beyond ParseRequestURI's (a fragment with a bad escape). */
function parseError(text: string): string | undefined {
  const hash = text.indexOf('#');
  if (hash >= 0 && unescape(text.slice(hash + 1), 'fragment') === undefined) return 'invalid URL escape';
  return undefined;
}

/** `url.Parse` of a text `ParseRequestURI` accepted. */
function parse(text: string): GoUrl {
  const hash = text.indexOf('#');
  const [raw, fragment] =
    hash < 0 ? [text, ''] : [text.slice(0, hash), unescape(text.slice(hash + 1), 'fragment') ?? ''];
  if (raw === '*') return new GoUrl('', '', '', '*', '', '', false, fragment, undefined);
  const colon = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(raw);
  const scheme = colon ? colon[0].slice(0, -1).toLowerCase() : '';
  let rest = colon ? raw.slice(colon[0].length) : raw;
  let rawQuery = '';
  let forceQuery = false;
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    forceQuery = true;
    rest = rest.slice(0, -1);
  } else if (rest.includes('?')) {
    rawQuery = rest.slice(rest.indexOf('?') + 1);
    rest = rest.slice(0, rest.indexOf('?'));
  }
  if (!rest.startsWith('/') && scheme !== '') {
    return new GoUrl(scheme, rest, '', '', '', rawQuery, forceQuery, fragment, undefined);
  }
  let host = '';
  let userinfo: string | undefined;
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    authority = slash >= 0 ? authority.slice(0, slash) : authority;
    const at = authority.lastIndexOf('@');
    host = unescape(at < 0 ? authority : authority.slice(at + 1), 'host') ?? '';
    if (at >= 0) userinfo = authority.slice(0, at);
  }
  const path = unescape(rest, 'path') ?? rest;
  const rawPath = escape(path, 'path') === rest ? '' : rest;
  return new GoUrl(scheme, '', host, path, rawPath, rawQuery, forceQuery, fragment, userinfo);
}

function splitHostPort(hostPort: string): { host: string; port: string } {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && /^:[0-9]*$/.test(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

/** Go's `unescape`: `%XX` decoded as bytes (read back as UTF-8), `+` a space in query components; undefined on a bad escape. */
function unescape(s: string, mode: Mode): string | undefined {
  const bytes: number[] = [];
  const utf8 = new TextEncoder().encode(s);
  for (let i = 0; i < utf8.length;) {
    const c = utf8[i];
    if (c === 0x25) {
      const hex = String.fromCharCode(utf8[i + 1] ?? 0, utf8[i + 2] ?? 0);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      bytes.push(c === 0x2b && mode === 'query' ? 0x20 : c);
      i++;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Go's `shouldEscape` for paths and fragments (bytes; everything non-ASCII is escaped). */
function shouldEscape(c: number, mode: Mode): boolean {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9]/.test(ch) && c < 0x80) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) return mode === 'path' ? ch === '?' : mode !== 'fragment';
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

/** Go's `escape` (paths: `%XX` in upper case, spaces too). */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    out += shouldEscape(b, mode) ? `%${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b);
  }
  return out;
}

/** Go's `validEncoded(s, encodePath)`: only characters a path may hold unescaped, and `%`. */
function validEncodedPath(s: string): boolean {
  for (const b of new TextEncoder().encode(s)) {
    const ch = String.fromCharCode(b);
    if ("!$&'()*+,;=:@[]%".includes(ch)) continue;
    if (shouldEscape(b, 'path')) return false;
  }
  return true;
}
