import { isIP } from 'net';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * String formats the apiserver checks on custom resources (kube-openapi's strfmt registry).
 * Formats it does not know (and int32, int64, float, double, password) are not checked, like the apiserver.
 *
 * Where ajv-formats agrees with Go's strfmt (email, ipv4, ipv6) the ajv validator is used; the
 * rest follow Go: `uuid` accepts 32 hex digits without dashes, `uri` is `url.ParseRequestURI`
 * (absolute URI or absolute path), `date-time` is `strfmt.IsDateTime` (time zone required), `duration` takes
 * Go units plus d/w, `cidr` / `mac` are `net.ParseCIDR` / `net.ParseMAC`.
 */
export function checkFormat(format: string, value: string): boolean {
  const check = FORMATS[format];
  return check ? check(value) : true;
}

/** Whether the apiserver validates this format at all. */
export function isKnownFormat(format: string): boolean {
  return format in FORMATS;
}

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** One ajv validator per format, compiled once. */
function ajvFormat(format: string): (value: string) => boolean {
  return value => {
    let fn = compiled.get(format);
    if (!fn) {
      if (!ajv) {
        ajv = new Ajv({ strict: false });
        addFormats(ajv, ['email', 'ipv4', 'ipv6']);
      }
      fn = ajv.compile({ type: 'string', format });
      compiled.set(format, fn);
    }
    return fn(value) as boolean;
  };
}

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const uuidVersion = (v: string) => new RegExp(`^(?:[0-9a-f]{8}-[0-9a-f]{4}-${v}[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|[0-9a-f]{12}${v}[0-9a-f]{3}[89ab][0-9a-f]{15})$`, 'i');
const HOSTNAME = /^(?=.{1,255}$)(?:[a-zA-Z0-9\p{S}\p{L}](?:[a-zA-Z0-9\p{S}\p{L}-]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(?:\.[a-zA-Z0-9\p{S}\p{L}](?:[a-zA-Z0-9\p{S}\p{L}-]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)*$/u;
const DURATION = /^(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(?:ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|min|hr)\s*)+$/;
// strfmt.IsDateTime: full date, 't', hh:mm:ss with optional fraction, then 'z' or ±hh:mm (case-insensitive)
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  return !!m && isDate(`${m[1]}-${m[2]}-${m[3]}`) && +m[4] < 24 && +m[5] < 60 && +m[6] < 60;
}

function isUri(value: string): boolean {
  if (value.startsWith('/')) return !/\s/.test(value);
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isCidr(value: string): boolean {
  const [addr, len, ...rest] = value.split('/');
  const family = isIP(addr);
  return family !== 0 && rest.length === 0 && /^[0-9]{1,3}$/.test(len ?? '') && Number(len) <= (family === 4 ? 32 : 128);
}

function isBase64(value: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value);
}

const FORMATS: Record<string, (value: string) => boolean> = {
  'email': ajvFormat('email'),
  'ipv4': ajvFormat('ipv4'),
  'ipv6': ajvFormat('ipv6'),
  'hostname': v => HOSTNAME.test(v),
  'uri': isUri,
  'uuid': v => UUID.test(v),
  'uuid3': v => uuidVersion('3').test(v),
  'uuid4': v => uuidVersion('4').test(v),
  'uuid5': v => uuidVersion('5').test(v),
  'cidr': isCidr,
  'mac': v => /^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2,9})$/.test(v),
  'byte': isBase64,
  'date': isDate,
  'date-time': isDateTime,
  'datetime': isDateTime,
  'duration': v => DURATION.test(v),
  'bsonobjectid': v => /^[0-9a-f]{24}$/.test(v),
  'hexcolor': v => /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v),
  'rgbcolor': v => /^rgb\(\s*(?:[01]?\d?\d|2[0-4]\d|25[0-5])\s*,\s*(?:[01]?\d?\d|2[0-4]\d|25[0-5])\s*,\s*(?:[01]?\d?\d|2[0-4]\d|25[0-5])\s*\)$/.test(v),
  'ssn': v => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(v),
};
