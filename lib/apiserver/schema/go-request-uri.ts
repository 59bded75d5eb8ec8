/**
 * Go's `net/url.ParseRequestURI`, the `uri` format of kube-openapi and the strictness of the CEL `url()`
 * library: an absolute URI or an absolute path, no fragment splitting (`#` stays in the path), no control bytes,
 * hosts with only the characters and `%`-escapes Go allows, a numeric port. Returns Go's error text, or undefined.
 *
 * `strictBrackets`: Go 1.24.8/1.25.2 and later (Kubernetes 1.36 here) also require a bracketed host to be an IPv6
 * address (CVE-2025-47912); Kubernetes 1.28 to 1.35 are built with older Go.
 *
 * @internal
 */
export function goRequestUriError(raw: string, strictBrackets = false): string | undefined {
  if (/[\x00-\x1f\x7f]/.test(raw)) return 'net/url: invalid control character in URL';
  if (raw === '') return 'empty url';
  if (raw === '*') return undefined;
  const scheme = getScheme(raw);
  if (typeof scheme === 'object') return scheme.error;
  let rest = scheme === '' ? raw : raw.slice(scheme.length + 1);
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else rest = rest.split('?')[0];
  if (!rest.startsWith('/')) return scheme !== '' ? undefined : 'invalid URI for request'; // opaque (mailto:a@b)
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    authority = slash >= 0 ? authority.slice(0, slash) : authority;
    const error = authorityError(authority, strictBrackets);
    if (error) return error;
  }
  return unescapeError(rest, 'path');
}

/** The scheme before the first `:` (letters, then letters, digits, `+-.`), '' when there is none. */
function getScheme(raw: string): string | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return '';
      continue;
    }
    if (c === ':') return i === 0 ? { error: 'missing protocol scheme' } : raw.slice(0, i);
    return '';
  }
  return '';
}

function authorityError(authority: string, strictBrackets: boolean): string | undefined {
  const at = authority.lastIndexOf('@');
  const hostError = parseHostError(at < 0 ? authority : authority.slice(at + 1), strictBrackets);
  if (hostError) return hostError;
  if (at < 0) return undefined;
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return 'net/url: invalid userinfo';
  return unescapeError(userinfo, 'userinfo');
}

function parseHostError(host: string, strictBrackets: boolean): string | undefined {
  if (host.startsWith('[')) {
    const end = host.lastIndexOf(']');
    if (end < 0) return "missing ']' in host";
    const colonPort = host.slice(end + 1);
    if (!validOptionalPort(colonPort)) return `invalid port ${JSON.stringify(colonPort)} after host`;
    const zone = host.slice(0, end).indexOf('%25');
    if (zone >= 0) {
      return (
        unescapeError(host.slice(0, zone), 'host') ??
        unescapeError(host.slice(zone, end), 'zone') ??
        unescapeError(host.slice(end), 'host') ??
        (strictBrackets ? bracketedHostError(host.slice(1, zone)) : undefined)
      );
    }
    if (strictBrackets) {
      const error = bracketedHostError(host.slice(1, end));
      if (error) return error;
    }
  } else {
    // Go 1.25's net/url (with the strict brackets): the port starts at the first colon, so `x:1:2` is refused
    const colon = strictBrackets ? host.indexOf(':') : host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) {
      return `invalid port ${JSON.stringify(host.slice(colon))} after host`;
    }
  }
  return unescapeError(host, 'host');
}

/** Go ≥ 1.25.2: the text between the brackets must be an IPv6 address (netip.ParseAddr, not IPv4). */
function bracketedHostError(inner: string): string | undefined {
  return isIPv6Literal(inner) ? undefined : `invalid IP-literal ${JSON.stringify(inner)}`;
}

function isIPv6Literal(s: string): boolean {
  if (!s.includes(':')) return false;
  // netip.ParseAddr: hex groups, one '::', an optional dotted IPv4 tail (no leading zeros)
  const v4 =
    /^(.*:)((?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3})$/.exec(
      s,
    );
  const head = v4 ? `${v4[1]}0:0` : s;
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const parts = halves.flatMap(groups);
  if (!parts.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? parts.length <= 7 : parts.length === 8;
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

type EscapeMode = 'path' | 'host' | 'zone' | 'userinfo';

/** Go's `unescape` checks: well-formed `%XX`; in hosts only non-ASCII bytes (or `%25`) escaped and no bad characters. */
function unescapeError(s: string, mode: EscapeMode): string | undefined {
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        return `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`;
      }
      const escaped = s.slice(i, i + 3);
      if (mode === 'host' && parseInt(s[i + 1], 16) < 8 && escaped !== '%25') {
        return `invalid URL escape ${JSON.stringify(escaped)}`;
      }
      if (mode === 'zone') {
        const v = parseInt(s.slice(i + 1, i + 3), 16);
        if (escaped !== '%25' && v !== 0x20 && shouldEscapeInHost(v)) {
          return `invalid URL escape ${JSON.stringify(escaped)}`;
        }
      }
      i += 3;
      continue;
    }
    const code = s.charCodeAt(i);
    if ((mode === 'host' || mode === 'zone') && code < 0x80 && shouldEscapeInHost(code)) {
      return `invalid character ${JSON.stringify(c)} in host name`;
    }
    i++;
  }
  return undefined;
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

/** `shouldEscape(c, encodeHost)`: anything but alphanumerics, `-_.~`, the sub-delims and `:[]<>"`. */
function shouldEscapeInHost(code: number): boolean {
  const c = String.fromCharCode(code);
  if (/[A-Za-z0-9]/.test(c)) return false;
  return !'-_.~!$&\'()*+,;=:[]<>"'.includes(c);
}
