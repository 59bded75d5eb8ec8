import {
  BOOL,
  BYTES,
  CelType,
  DOUBLE,
  DURATION,
  DYN,
  INT,
  listOf,
  mapOf,
  opaque,
  STRING,
  TIMESTAMP,
  UINT,
} from './cel-types';
import { CelLibrary } from './environment';
import { NAMED_FORMATS } from './named-formats';

/**
 * One overload the local type checker knows, with the result type it produces.
 * `T` in `args`/`result` is the list element type of the target (for the Kubernetes lists library).
 */
export interface FunctionDecl {
  readonly name: string;
  /** Receiver type for `x.f()` style calls; undefined for global functions. */
  readonly target?: CelType | 'list';
  readonly args: readonly (CelType | 'T')[];
  readonly result: CelType | 'T';
  /** Cost is proportional to the size of the target/first string argument (string scans, regexes). */
  readonly scalesWithSize?: boolean;
  /** The library of `CEL_LIBRARIES` the overload belongs to, when not every supported version offers it. */
  readonly library?: CelLibrary;
}

const QUANTITY = opaque('Quantity');
const URL_T = opaque('URL');
const IP = opaque('IP');
const CIDR = opaque('CIDR');
const SEMVER = opaque('Semver');
const FORMAT = opaque('Format');
const OPTIONAL = opaque('Optional');

const fn = (
  name: string,
  args: FunctionDecl['args'],
  result: FunctionDecl['result'],
  scalesWithSize = false,
): FunctionDecl => ({ name, args, result, scalesWithSize });
const method = (
  target: FunctionDecl['target'],
  name: string,
  args: FunctionDecl['args'],
  result: FunctionDecl['result'],
  scalesWithSize = false,
): FunctionDecl => ({ name, target, args, result, scalesWithSize });

/** The declarations of one library (`CEL_LIBRARIES`), which older versions lack. */
const of = (library: CelLibrary, decls: readonly FunctionDecl[]): FunctionDecl[] =>
  decls.map((d) => ({ ...d, library }));

const TIME_GETTERS = [
  'getFullYear',
  'getMonth',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
];

/**
 * Every function a rule may call and that the local library both type-checks and evaluates:
 * the CEL standard library, the strings extension, and the Kubernetes libraries implemented in
 * `kubernetes-library.ts` (lists, regex, quantity, URL, IP, CIDR, sets). Operators are handled by the checker.
 */
export const FUNCTION_DECLS: readonly FunctionDecl[] = [
  // standard: strings, bytes, conversions, time
  method(STRING, 'contains', [STRING], BOOL, true),
  method(STRING, 'startsWith', [STRING], BOOL, true),
  method(STRING, 'endsWith', [STRING], BOOL, true),
  method(STRING, 'matches', [STRING], BOOL, true),
  fn('matches', [STRING, STRING], BOOL, true),
  // numeric conversions have no overload for bool (measured: `int(true)` is refused on 1.28, 1.32 and 1.36)
  ...[INT, UINT, DOUBLE, STRING, TIMESTAMP, DURATION].map((from) => fn('int', [from], INT)),
  ...[INT, UINT, DOUBLE, STRING].flatMap((from) => [fn('uint', [from], UINT), fn('double', [from], DOUBLE)]),
  fn('string', [DYN], STRING),
  fn('bool', [DYN], BOOL),
  fn('bytes', [DYN], BYTES),
  fn('dyn', [DYN], DYN),
  fn('timestamp', [DYN], TIMESTAMP),
  fn('duration', [DYN], DURATION),
  ...TIME_GETTERS.flatMap((g) => [method(TIMESTAMP, g, [], INT), method(TIMESTAMP, g, [STRING], INT)]),
  ...['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'].map((g) => method(DURATION, g, [], INT)),
  // strings extension (cel-go ext.Strings v2)
  method(STRING, 'charAt', [INT], STRING),
  method(STRING, 'indexOf', [STRING], INT, true),
  method(STRING, 'indexOf', [STRING, INT], INT, true),
  method(STRING, 'lastIndexOf', [STRING], INT, true),
  method(STRING, 'lastIndexOf', [STRING, INT], INT, true),
  method(STRING, 'lowerAscii', [], STRING, true),
  method(STRING, 'upperAscii', [], STRING, true),
  method(STRING, 'replace', [STRING, STRING], STRING, true),
  method(STRING, 'replace', [STRING, STRING, INT], STRING, true),
  method(STRING, 'split', [STRING], listOf(STRING), true),
  method(STRING, 'split', [STRING, INT], listOf(STRING), true),
  method(STRING, 'substring', [INT], STRING, true),
  method(STRING, 'substring', [INT, INT], STRING, true),
  method(STRING, 'trim', [], STRING, true),
  method(listOf(STRING), 'join', [], STRING, true),
  method(listOf(STRING), 'join', [STRING], STRING, true),
  ...of('stringsV2', [
    method(STRING, 'format', [listOf(DYN)], STRING, true),
    fn('strings.quote', [STRING], STRING, true),
  ]),
  // Kubernetes regex library
  method(STRING, 'find', [STRING], STRING, true),
  method(STRING, 'findAll', [STRING], listOf(STRING), true),
  method(STRING, 'findAll', [STRING, INT], listOf(STRING), true),
  // Kubernetes lists library
  method('list', 'isSorted', [], BOOL, true),
  method('list', 'sum', [], 'T', true),
  method('list', 'min', [], 'T', true),
  method('list', 'max', [], 'T', true),
  method('list', 'indexOf', ['T'], INT, true),
  method('list', 'lastIndexOf', ['T'], INT, true),
  // cel-go's lists extension v3 (`sortBy` is a macro: type-checker.ts)
  ...of('lists', [
    fn('lists.range', [INT], listOf(INT)),
    method('list', 'slice', [INT, INT], 'T', true),
    method('list', 'flatten', [], 'T', true),
    method('list', 'flatten', [INT], 'T', true),
    method('list', 'distinct', [], 'T', true),
    method('list', 'reverse', [], 'T', true),
    method('list', 'sort', [], 'T', true),
  ]),
  ...of('optionalTypesV2', [
    method('list', 'first', [], 'T'),
    method('list', 'last', [], 'T'),
    fn('optional.unwrap', [listOf(DYN)], listOf(DYN), true),
  ]),
  // sets extension
  ...of('sets', [
    fn('sets.contains', [listOf(DYN), listOf(DYN)], BOOL, true),
    fn('sets.equivalent', [listOf(DYN), listOf(DYN)], BOOL, true),
    fn('sets.intersects', [listOf(DYN), listOf(DYN)], BOOL, true),
  ]),
  // encoders extension
  fn('base64.encode', [BYTES], STRING, true),
  fn('base64.decode', [STRING], BYTES, true),
  // Kubernetes quantity library
  ...of('quantity', [
    fn('quantity', [STRING], QUANTITY),
    fn('isQuantity', [STRING], BOOL),
    fn('sign', [QUANTITY], INT),
    method(QUANTITY, 'isInteger', [], BOOL),
    method(QUANTITY, 'asInteger', [], INT),
    method(QUANTITY, 'asApproximateFloat', [], DOUBLE),
    method(QUANTITY, 'add', [QUANTITY], QUANTITY),
    method(QUANTITY, 'add', [INT], QUANTITY),
    method(QUANTITY, 'sub', [QUANTITY], QUANTITY),
    method(QUANTITY, 'sub', [INT], QUANTITY),
    method(QUANTITY, 'isLessThan', [QUANTITY], BOOL),
    method(QUANTITY, 'isGreaterThan', [QUANTITY], BOOL),
    method(QUANTITY, 'compareTo', [QUANTITY], INT),
  ]),
  // Kubernetes semver library
  ...of('semver', [
    fn('isSemver', [STRING], BOOL),
    fn('isSemver', [STRING, BOOL], BOOL),
    fn('semver', [STRING], SEMVER),
    fn('semver', [STRING, BOOL], SEMVER),
    method(SEMVER, 'major', [], INT),
    method(SEMVER, 'minor', [], INT),
    method(SEMVER, 'patch', [], INT),
    method(SEMVER, 'isLessThan', [SEMVER], BOOL),
    method(SEMVER, 'isGreaterThan', [SEMVER], BOOL),
    method(SEMVER, 'compareTo', [SEMVER], INT),
  ]),
  // Kubernetes format library, and the optional values it returns
  ...of('format', [
    ...Object.keys(NAMED_FORMATS).map((f) => fn(`format.${f}`, [], FORMAT)),
    fn('format.named', [STRING], OPTIONAL),
    method(FORMAT, 'validate', [STRING], OPTIONAL, true),
  ]),
  ...of('optionalTypes', [
    fn('optional.of', [DYN], OPTIONAL),
    fn('optional.ofNonZeroValue', [DYN], OPTIONAL),
    fn('optional.none', [], OPTIONAL),
    method(OPTIONAL, 'hasValue', [], BOOL),
    method(OPTIONAL, 'value', [], DYN),
    method(OPTIONAL, 'orValue', [DYN], DYN),
  ]),
  // Kubernetes URL library
  fn('url', [STRING], URL_T),
  fn('isURL', [STRING], BOOL),
  ...['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'].map((g) => method(URL_T, g, [], STRING)),
  method(URL_T, 'getQuery', [], mapOf(STRING, listOf(STRING))),
  // Kubernetes IP and CIDR libraries
  ...of('ipCidr', [
    fn('isIP', [STRING], BOOL),
    fn('ip', [STRING], IP),
    fn('ip.isCanonical', [STRING], BOOL),
    method(IP, 'family', [], INT),
    ...['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'].map((g) =>
      method(IP, g, [], BOOL),
    ),
    fn('isCIDR', [STRING], BOOL),
    fn('cidr', [STRING], CIDR),
    method(CIDR, 'containsIP', [IP], BOOL),
    method(CIDR, 'containsIP', [STRING], BOOL),
    method(CIDR, 'containsCIDR', [CIDR], BOOL),
    method(CIDR, 'containsCIDR', [STRING], BOOL),
    method(CIDR, 'ip', [], IP),
    method(CIDR, 'masked', [], CIDR),
    method(CIDR, 'prefixLength', [], INT),
  ]),
];

/**
 * Functions the apiserver offers (with the optional library, `CEL_LIBRARIES.optionalTypes`) that the local library
 * does not: rules using them are parsed and partly checked, then reported as warnings ("not checked locally").
 */
export const UNSUPPORTED_FUNCTIONS: ReadonlySet<string> = new Set(['or', 'optMap', 'optFlatMap']);

/**
 * cel-go extensions no supported Kubernetes version offers to CRD rules or admission policies (measured on 1.28, 1.32
 * and 1.36: `undeclared reference`): the math, encoders, bindings and regex extensions, and strings v3's `reverse`.
 * The local runtime may implement some (base64); the checker refuses them all, as the apiservers do.
 */
export const NOT_OFFERED: ReadonlySet<string> = new Set([
  'math.greatest',
  'math.least',
  'math.ceil',
  'math.floor',
  'math.round',
  'math.abs',
  'math.sign',
  'math.isNaN',
  'math.isInf',
  'math.isFinite',
  'math.bitAnd',
  'math.bitOr',
  'math.bitXor',
  'math.bitNot',
  'math.bitShiftLeft',
  'math.bitShiftRight',
  'math.trunc',
  'math.sqrt',
  'base64.encode',
  'base64.decode',
  'cel.bind',
  'strings.reverse',
  'regex.replace',
  'regex.extract',
  'regex.extractAll',
]);

/** A few names cel-go uses for type literals, usable as values in `type(x) == int`. */
export const TYPE_IDENTIFIERS: Readonly<Record<string, CelType>> = {
  int: INT,
  uint: UINT,
  double: DOUBLE,
  bool: BOOL,
  string: STRING,
  bytes: BYTES,
  list: listOf(DYN),
  map: mapOf(DYN, DYN),
  null_type: { kind: 'null' },
  type: { kind: 'type' },
  'google.protobuf.Timestamp': TIMESTAMP,
  'google.protobuf.Duration': DURATION,
};
