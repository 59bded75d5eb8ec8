import { CelType } from './cel-types';

/**
 * The cel-go overload ids a call resolves to, as far as the cost estimator tells them apart.
 *
 * cel-go's checker keeps every overload whose parameter types accept the argument types (several when
 * an argument is `dyn`), and `checker.Cost` takes the union of their estimates. Only the overloads
 * whose estimate differs from the plain `1 + arguments` need their real id (`add_string`,
 * `index_list`, `cidr_contains_ip_string`…, see cost-estimate.ts); every other call gets one id
 * named after its function.
 */
export function overloadIds(name: string, target: CelType | undefined, args: readonly CelType[]): string[] {
  const accepts = (param: Kind, t: CelType | undefined): boolean =>
    t !== undefined && (t.kind === 'dyn' || param === 'any' || t.kind === param);
  const ids = (
    candidates: ReadonlyArray<readonly [string, readonly Kind[]]>,
    operands: readonly (CelType | undefined)[],
  ): string[] => {
    const found = candidates.filter(([, params]) => params.every((p, i) => accepts(p, operands[i]))).map(([id]) => id);
    return found.length > 0 ? found : [name];
  };
  switch (name) {
    case '_&&_':
      return ['logical_and'];
    case '_||_':
      return ['logical_or'];
    case '_?_:_':
      return ['conditional'];
    case '_==_':
      return ['equals'];
    case '_!=_':
      return ['not_equals'];
    case '_+_':
      return ids(ADD, args);
    case '_<_':
      return ids(COMPARISONS.less, args);
    case '_<=_':
      return ids(COMPARISONS.less_equals, args);
    case '_>_':
      return ids(COMPARISONS.greater, args);
    case '_>=_':
      return ids(COMPARISONS.greater_equals, args);
    case '_[_]':
      return ids(
        [
          ['index_list', ['list', 'any']],
          ['index_map', ['map', 'any']],
        ],
        args,
      );
    case '@in':
      return ids(
        [
          ['in_list', ['any', 'list']],
          ['in_map', ['any', 'map']],
        ],
        args,
      );
    case 'bytes':
      return target
        ? [name]
        : ids(
            [
              ['string_to_bytes', ['string']],
              ['bytes_to_bytes', ['bytes']],
            ],
            args,
          );
    case 'string':
      return target ? [name] : ids(TO_STRING, args);
    case 'strings.quote':
      return ['strings_quote'];
    case 'matches':
      return target ? ['matches_string'] : ['matches'];
    case 'contains':
    case 'startsWith':
    case 'endsWith':
    case 'format':
      return target && accepts('string', target) ? [`${STRING_MEMBER_IDS[name]}`] : [name];
    case 'ip':
      return target ? ['cidr_ip'] : ['string_to_ip'];
    case 'containsIP':
      return ids(
        [
          ['cidr_contains_ip_ip', ['opaque']],
          ['cidr_contains_ip_string', ['string']],
        ],
        args,
      );
    case 'containsCIDR':
      return ids(
        [
          ['cidr_contains_cidr', ['opaque']],
          ['cidr_contains_cidr_string', ['string']],
        ],
        args,
      );
    case 'sets.contains':
      return ['list_sets_contains_list'];
    case 'sets.intersects':
      return ['list_sets_intersects_list'];
    case 'sets.equivalent':
      return ['list_sets_equivalent_list'];
  }
  return [name];
}

type Kind = CelType['kind'] | 'any';

const STRING_MEMBER_IDS: Record<string, string> = {
  contains: 'contains_string',
  startsWith: 'starts_with_string',
  endsWith: 'ends_with_string',
  format: 'string_format',
};

const ADD: ReadonlyArray<readonly [string, readonly Kind[]]> = [
  ['add_int64', ['int', 'int']],
  ['add_uint64', ['uint', 'uint']],
  ['add_double', ['double', 'double']],
  ['add_string', ['string', 'string']],
  ['add_bytes', ['bytes', 'bytes']],
  ['add_list', ['list', 'list']],
  ['add_timestamp_duration', ['timestamp', 'duration']],
  ['add_duration_timestamp', ['duration', 'timestamp']],
  ['add_duration_duration', ['duration', 'duration']],
];

const TO_STRING: ReadonlyArray<readonly [string, readonly Kind[]]> = [
  ['string_to_string', ['string']],
  ['int64_to_string', ['int']],
  ['uint64_to_string', ['uint']],
  ['double_to_string', ['double']],
  ['bytes_to_string', ['bytes']],
  ['timestamp_to_string', ['timestamp']],
  ['duration_to_string', ['duration']],
  ['bool_to_string', ['bool']],
];

/** The ordering overloads (`less_string`, `less_int64_double`…); only the string and bytes ones cost more than 1. */
const COMPARISONS = {
  less: comparisons('less'),
  less_equals: comparisons('less_equals'),
  greater: comparisons('greater'),
  greater_equals: comparisons('greater_equals'),
};

function comparisons(prefix: string): ReadonlyArray<readonly [string, readonly Kind[]]> {
  const pairs: Array<[string, Kind, Kind]> = [
    ['bool', 'bool', 'bool'],
    ['int64', 'int', 'int'],
    ['uint64', 'uint', 'uint'],
    ['double', 'double', 'double'],
    ['string', 'string', 'string'],
    ['bytes', 'bytes', 'bytes'],
    ['timestamp', 'timestamp', 'timestamp'],
    ['duration', 'duration', 'duration'],
    ['int64_uint64', 'int', 'uint'],
    ['int64_double', 'int', 'double'],
    ['uint64_int64', 'uint', 'int'],
    ['uint64_double', 'uint', 'double'],
    ['double_int64', 'double', 'int'],
    ['double_uint64', 'double', 'uint'],
  ];
  return pairs.map(([suffix, a, b]) => [`${prefix}_${suffix}`, [a, b]] as const);
}
