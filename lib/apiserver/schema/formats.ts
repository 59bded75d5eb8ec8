import { isIP } from 'net';
import { goParseDuration } from './go-duration';
import { isGoMailAddress } from './go-mail-address';
import { goRegExp } from './go-regexp';
import { goRequestUriError } from './go-request-uri';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';

/**
 * String formats the apiserver checks on custom resources: the formats apiextensions keeps
 * (`supportedFormats`, names compared without dashes, so `date-time` is `datetime`) with kube-openapi's strfmt
 * checks (v0.0.0-20241105, the version Kubernetes 1.32 vendors) and the govalidator and Go standard library
 * functions behind them. Other formats (int32, password, …) are not checked, like the apiserver.
 * Each is checked value by value against the real apiserver (test/apiserver/value-formats.test.ts).
 */
export function checkFormat(
  format: string,
  value: string,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): boolean {
  const check = FORMATS[format.replace(/-/g, '')];
  return check ? check(value, version) : true;
}

/** Whether the apiserver validates this format at all. */
export function isKnownFormat(format: string): boolean {
  return format.replace(/-/g, '') in FORMATS;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// strfmt.HostnamePattern, then at most 255 bytes and labels of at most 63 bytes
const HOSTNAME = goRegExp(
  '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9\\-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$',
);
// strfmt.DateTimePattern on the lower-cased part after the first 't' (the `.` before the fraction is any character)
const DATE_TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})([^\n][0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u;

function isHostname(value: string): boolean {
  return (
    HOSTNAME.test(value) &&
    Buffer.byteLength(value) <= 255 &&
    value.split('.').every((label) => Buffer.byteLength(label) <= 63)
  );
}

/** Go `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, a day the month has. */
function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [+m[1], +m[2], +m[3]];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `strfmt.IsDateTime`. */
function isDateTime(value: string): boolean {
  if (value.length < 4) return false;
  const parts = value.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = DATE_TIME.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

/** strfmt units: each group's last spelling also matches as a prefix (`hours`, `days`, `minutes`). */
const DURATION_UNITS = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** `strfmt.ParseDuration`: Go's syntax, or else every `<digits> <unit>` found in the text (Go's `\d`, `\s`). */
function isDuration(value: string): boolean {
  if (goParseDuration(value) !== undefined) return true;
  let ok = false;
  for (const m of value.matchAll(/([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+)/gu)) {
    if (BigInt(m[1]) > INT64_MAX) return false; // strconv.Atoi fails, whatever matched before
    const unit = m[2].toLowerCase();
    if (
      DURATION_UNITS.some((variants) =>
        variants.some((v, i) => (i === variants.length - 1 && unit.startsWith(v)) || v === unit),
      )
    ) {
      ok = true;
    }
  }
  return ok;
}

const INT64_MAX = 2n ** 63n - 1n;

/** `netutils.ParseIPSloppy`: Go's net.ParseIP of Go < 1.17, which tolerates leading zeros in IPv4 parts. */
function parseIpSloppy(value: string): 4 | 6 | undefined {
  if (isIPv4Sloppy(value)) return 4;
  if (value.includes(':')) {
    if (value.includes('%')) return undefined; // no zones
    // an embedded IPv4 tail may have leading zeros too
    const tail = /^(.*:)([0-9.]+)$/.exec(value);
    if (tail && tail[2].includes('.')) {
      const v4 = normalizeIPv4(tail[2]);
      return v4 && isIP(`${tail[1]}${v4}`) === 6 ? 6 : undefined;
    }
    return isIP(value) === 6 ? 6 : undefined;
  }
  return undefined;
}

function normalizeIPv4(value: string): string | undefined {
  const parts = value.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^[0-9]+$/.test(p) || Number(p) > 255)) return undefined;
  return parts.map((p) => String(Number(p))).join('.');
}

function isIPv4Sloppy(value: string): boolean {
  return normalizeIPv4(value) !== undefined;
}

/** `netutils.ParseCIDRSloppy`. */
function isCidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const family = parseIpSloppy(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  if (!family || !/^[0-9]+$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Go `net.ParseMAC`: 6, 8 or 20 octets, colon- or dash-separated pairs or dot-separated groups of four;
 * from 1.36 also 12 or 16 hex digits without separators (measured).
 */
function isMac(value: string, version: KubernetesVersion): boolean {
  if (since(version, 'macWithoutSeparators') && /^(?:[0-9a-fA-F]{12}|[0-9a-fA-F]{16})$/.test(value)) return true;
  if (/^[0-9a-fA-F]{2}(?:([:-])[0-9a-fA-F]{2})+$/.test(value)) {
    const sep = value[2];
    const octets = value.split(sep);
    return octets.every((o) => /^[0-9a-fA-F]{2}$/.test(o)) && [6, 8, 20].includes(octets.length);
  }
  if (/^[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4})+$/.test(value)) return [3, 4, 10].includes(value.split('.').length);
  return false;
}

/** govalidator.IsIPv6: Go `net.ParseIP` (strict) and a colon. */
function isIPv6(value: string): boolean {
  if (!value.includes(':') || value.includes('%')) return false;
  return isIP(value) === 6;
}

/** kube-openapi's isIPv4: ParseIPSloppy succeeds and there is a dot (so `::ffff:1.2.3.4` counts). */
function isIPv4(value: string): boolean {
  return parseIpSloppy(value) !== undefined && value.includes('.');
}

/** govalidator's `[\s-]+`, with Go's ASCII-only `\s`. */
const GO_SPACES_AND_MINUS = /[\t\n\f\r -]+/g;

function isIsbn10(value: string): boolean {
  const s = value.replace(GO_SPACES_AND_MINUS, '');
  if (!/^[0-9]{9}[0-9X]$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
  sum += s[9] === 'X' ? 100 : 10 * Number(s[9]);
  return sum % 11 === 0;
}

function isIsbn13(value: string): boolean {
  const s = value.replace(GO_SPACES_AND_MINUS, '');
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
}

const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;

/** govalidator.IsCreditCard: the digits (anything else dropped) match a card pattern and pass Luhn. */
function isCreditCard(value: string): boolean {
  const digits = value.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const RGB_PART = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const RGB = goRegExp(`^rgb\\(\\s*${RGB_PART}\\s*,\\s*${RGB_PART}\\s*,\\s*${RGB_PART}\\s*\\)$`);

const FORMATS: Record<string, (value: string, version: KubernetesVersion) => boolean> = {
  bsonobjectid: (v) => /^[0-9a-fA-F]{24}$/.test(v),
  uri: (v, version) => goRequestUriError(v, since(version, 'strictBracketedHosts')) === undefined,
  email: isGoMailAddress,
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCidr,
  mac: isMac,
  uuid: (v) => UUID.test(v),
  uuid3: (v) => UUID3.test(v),
  uuid4: (v) => UUID4.test(v),
  uuid5: (v) => UUID5.test(v),
  isbn: (v) => isIsbn10(v) || isIsbn13(v),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: isCreditCard,
  ssn: (v) => v.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(v),
  hexcolor: (v) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v),
  rgbcolor: (v) => RGB.test(v),
  byte: (v) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(v),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};
