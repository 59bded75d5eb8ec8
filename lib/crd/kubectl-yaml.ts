import * as yaml from 'js-yaml';

/**
 * YAML read the way kubectl (and the apiserver's YAML decoder) reads it: `sigs.k8s.io/yaml`, which decodes with
 * its fork of go-yaml v2, a YAML 1.1 parser, and converts the result to JSON. Unquoted scalars therefore resolve as
 * in YAML 1.1, not in the YAML 1.2 core schema most JavaScript parsers follow:
 * - `y`, `yes`, `on` (and `n`, `no`, `off`), in any of their three spellings, are booleans;
 * - integers are Go's `strconv.ParseInt(s, 0, 64)` with underscores removed: `0777` is octal 511, `0x1F`, `0o17`,
 *   `0b101`, `1_000` and `+12` are numbers;
 * - floats are `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, plus `.inf`, `.nan` and friends, which JSON
 *   cannot carry: kubectl fails on them ("json: unsupported value"), and so does this reader;
 * - dates and timestamps stay strings (go-yaml v2 decodes them as strings into untyped values);
 * - `<<` merge keys work; a key given twice keeps its last value (go-yaml v2's non-strict decoding, which kubectl uses).
 * Keys resolve like values and are then written as strings (`yes:` is the key `"true"`), as `sigs.k8s.io/yaml` does.
 *
 * @see https://github.com/kubernetes-sigs/yaml/blob/master/goyaml.v2/resolve.go
 */
export function loadKubectlYaml(text: string): unknown[] {
  return yaml.loadAll(text, undefined, { schema: KUBECTL_SCHEMA, json: true });
}

// Every plain scalar of a file (descriptions included) goes through the resolvers below, in order, until one matches:
// each first rules out what it cheaply can (length, first character) before hashing the whole string into a Set.
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const LONGEST_NULL = 4;

const nullType = new yaml.Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (data: string | null) => data === null || (data.length <= LONGEST_NULL && NULLS.has(data)),
  construct: () => null,
});

/** `<<`: js-yaml merges the mappings of a key with this tag. */
const merge = new yaml.Type('tag:yaml.org,2002:merge', {
  kind: 'scalar',
  resolve: (data: string | null) => data === '<<' || data === null,
});

const TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const LONGEST_BOOL = 5;

const bool = new yaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (data: string) => data.length <= LONGEST_BOOL && (TRUE.has(data) || FALSE.has(data)),
  construct: (data: string) => TRUE.has(data),
});

/** What `strconv.ParseInt(s, 0, 64)` (or ParseUint) accepts: a sign, then a base prefix or a leading-zero octal. */
const GO_INTEGER = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
/** go-yaml v2's `yamlStyleFloat`. */
const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** go-yaml v2 tries numbers only on scalars starting with a digit, a sign or a dot (its `resolveTable` hint). */
function startsLikeNumber(data: string): boolean {
  // a character code, not a regular expression: this runs on every plain scalar of the file
  const c = data.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || c === 0x2d /* - */ || c === 0x2b /* + */ || c === 0x2e; /* . */
}
/** `.inf`, `.nan` and friends (all of which start like a number): a Set, so `toString` or `constructor` are not among them. */
const NON_FINITE = new Set([
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]);

const int = new yaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string) => startsLikeNumber(data) && !data.startsWith('.') && GO_INTEGER.test(data.replace(/_/g, '')),
  construct: (data: string) => withoutNegativeZero(parseGoInteger(data.replace(/_/g, ''))),
});

const float = new yaml.Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (data: string) => {
    if (!startsLikeNumber(data)) return false;
    if (NON_FINITE.has(data)) return true;
    // a leading dot is parsed as written (strconv.ParseFloat: no underscores); otherwise underscores are dropped
    return GO_FLOAT.test(data.startsWith('.') ? data : data.replace(/_/g, ''));
  },
  construct: (data: string) => {
    if (NON_FINITE.has(data)) {
      throw new Error(
        `${data} is not a number JSON can carry: kubectl fails on it ("json: unsupported value"); quote it for a string`,
      );
    }
    return withoutNegativeZero(Number(data.startsWith('.') ? data : data.replace(/_/g, '')));
  },
});

/** `-0` is 0: Go's int64 has no negative zero, and JSON (how the manifest is sent and emitted) writes it as `0`. */
function withoutNegativeZero(n: number): number {
  return n === 0 ? 0 : n;
}

function parseGoInteger(s: string): number {
  const negative = s.startsWith('-');
  const digits = s.replace(/^[-+]/, '');
  let magnitude: number;
  if (/^0[xX]/.test(digits)) magnitude = Number(`0x${digits.slice(2)}`);
  else if (/^0[oO]/.test(digits)) magnitude = Number(`0o${digits.slice(2)}`);
  else if (/^0[bB]/.test(digits)) magnitude = Number(`0b${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) magnitude = Number(`0o${digits.slice(1)}`);
  else magnitude = Number(digits);
  return negative ? -magnitude : magnitude;
}

/**
 * YAML 1.1 as go-yaml v2 resolves plain scalars: null (`~`, `null`, empty), its booleans, integers and floats, and
 * merge keys; everything else is a string. Integers are tried before floats, like go-yaml (`09` is not octal, so it
 * is the float 9).
 */
const KUBECTL_SCHEMA = yaml.FAILSAFE_SCHEMA.extend({ implicit: [nullType, bool, int, float, merge] });
