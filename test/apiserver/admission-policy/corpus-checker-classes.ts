import type { CorpusPolicy } from './corpus';
import type { ValidatingAdmissionPolicySpec } from '../../../lib/apiserver/admission-policy';

/**
 * Issue 35's classes of differences between the policy checks and the real apiservers, each with cases of our own
 * (written here, not taken from the corpus that found them): every verdict below was read from kube-apiserver
 * 1.28.15, 1.32.13 and 1.36.3 and is checked against them by corpus.test.ts with the rest of the corpus.
 */
const DEPLOYMENTS = {
  resourceRules: [
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};
const on = (
  matchConstraints: ValidatingAdmissionPolicySpec['matchConstraints'],
  expression: string,
): ValidatingAdmissionPolicySpec => ({ matchConstraints, validations: [{ expression }] });

const LEXICAL = 'CEL lexical rules';
const DYN = 'dyn operands of timestamp and duration arithmetic';
const FORMAT = 'format() clauses the strings extension knows';
const WARNINGS = 'optional values and object-type equality';
const CONVERSIONS = 'conversions without an overload';
const RESOURCES = 'wildcards mixed with other resources';

export const CHECKER_CLASSES: readonly CorpusPolicy[] = [
  // CEL's lexical rules: string and bytes escapes, integer and double literal ranges, comments
  { name: 'lexical-1', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'a\\x41' == 'aA'") },
  { name: 'lexical-2', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'\\u00e9' == 'é'") },
  { name: 'lexical-3', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'\\101' == 'A'") },
  {
    name: 'lexical-4',
    about: LEXICAL,
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\`?' != ''"),
  },
  { name: 'lexical-5', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'\\z' == 'z'") },
  { name: 'lexical-6', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'\\U0001F600' != ''") },
  {
    name: 'lexical-7',
    about: LEXICAL,
    expect: 'accepted',
    expectOn: { '1.36': 'refused' },
    spec: on(DEPLOYMENTS, "'\\uD800' != ''"),
  },
  { name: 'lexical-8', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "b'\\xff' != b''") },
  { name: 'lexical-9', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "r'\\d+' != ''") },
  { name: 'lexical-10', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'''a'b''' != ''") },
  { name: 'lexical-11', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, '9223372036854775807 > 0') },
  { name: 'lexical-12', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, '-9223372036854775808 < 0') },
  { name: 'lexical-13', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '9223372036854775808 > 0') },
  { name: 'lexical-14', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, '0x7fffffffffffffff > 0') },
  { name: 'lexical-15', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '0x8000000000000000 > 0') },
  { name: 'lexical-16', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, '-0x8000000000000000 < 0') },
  { name: 'lexical-17', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, '18446744073709551615u > 0u') },
  { name: 'lexical-18', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '18446744073709551616u > 0u') },
  { name: 'lexical-19', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '-9223372036854775809 < 0') },
  { name: 'lexical-20', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, 'true // done') },
  { name: 'lexical-21', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, 'true //') },
  { name: 'lexical-22', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, 'true\n// done') },
  { name: 'lexical-23', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "true // a 'quote") },
  { name: 'lexical-24', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'//' != '' // c") },
  { name: 'lexical-25', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, 'true /* c */') },
  { name: 'lexical-26', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'a' // x\n == 'a'") },
  { name: 'lexical-27', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'\\?' == '?'") },
  { name: 'lexical-28', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "'\\`' == '`'") },
  { name: 'lexical-29', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'\\400' == 'a'") },
  { name: 'lexical-30', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'\\777' != ''") },
  { name: 'lexical-31', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'\\xZ' != ''") },
  { name: 'lexical-32', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'\\u12' != ''") },
  { name: 'lexical-33', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "b'\\uD800' != b''") },
  { name: 'lexical-34', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, "r'\\z' != ''") },
  { name: 'lexical-35', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'\\U00110000' != ''") },
  { name: 'lexical-36', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '"\\z" == \'z\'') },
  { name: 'lexical-37', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, "'''\\z''' == 'z'") },
  {
    name: 'lexical-38',
    about: LEXICAL,
    expect: 'refused',
    spec: on(DEPLOYMENTS, '[9223372036854775808, 0x8000000000000000]'),
  },
  { name: 'lexical-39', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '-(9223372036854775808) < 0') },
  { name: 'lexical-40', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '1.7976931348623157e309 > 0.0') },
  { name: 'lexical-41', about: LEXICAL, expect: 'refused', spec: on(DEPLOYMENTS, '0x1_0 > 0') },
  { name: 'lexical-42', about: LEXICAL, expect: 'accepted', spec: on(DEPLOYMENTS, '00 == 0') },
  // overloads of timestamp and duration arithmetic when an operand is dyn (a field of object at create)
  {
    name: 'dyn-1',
    about: DYN,
    expect: 'warned',
    spec: on(DEPLOYMENTS, "object.spec.x - duration('1h') < timestamp('2020-01-01T00:00:00Z')"),
  },
  {
    name: 'dyn-2',
    about: DYN,
    expect: 'accepted',
    spec: on(
      DEPLOYMENTS,
      "timestamp(object.metadata.creationTimestamp) + duration('1h') > timestamp('2020-01-01T00:00:00Z')",
    ),
  },
  {
    name: 'dyn-3',
    about: DYN,
    expect: 'warned',
    spec: on(DEPLOYMENTS, "object.x + duration('1h') > timestamp('2020-01-01T00:00:00Z')"),
  },
  { name: 'dyn-4', about: DYN, expect: 'warned', spec: on(DEPLOYMENTS, "object.x - object.y > duration('1s')") },
  {
    name: 'dyn-5',
    about: DYN,
    expect: 'warned',
    spec: on(DEPLOYMENTS, "duration('1h') + object.x > timestamp('2020-01-01T00:00:00Z')"),
  },
  { name: 'dyn-6', about: DYN, expect: 'warned', spec: on(DEPLOYMENTS, "object.spec.replicas + duration('1h') > 1") },
  { name: 'dyn-7', about: DYN, expect: 'warned', spec: on(DEPLOYMENTS, "[object.x - duration('1h')][0] == 1") },
  { name: 'dyn-8', about: DYN, expect: 'warned', spec: on(DEPLOYMENTS, "object.x - duration('1h') == duration('1h')") },
  { name: 'dyn-9', about: DYN, expect: 'warned', spec: on(DEPLOYMENTS, 'object.x + object.y == 1') },
  {
    name: 'dyn-10',
    about: DYN,
    expect: 'warned',
    spec: on(DEPLOYMENTS, "(object.x + duration('1h')).getHours() == 1"),
  },
  { name: 'dyn-11', about: DYN, expect: 'refused', spec: on(DEPLOYMENTS, "object.x * duration('1h') == 1") },
  { name: 'dyn-12', about: DYN, expect: 'refused', spec: on(DEPLOYMENTS, "object.x + 1 == 'a'") },
  { name: 'dyn-13', about: DYN, expect: 'refused', spec: on(DEPLOYMENTS, "object.x + [1] == ['a']") },
  {
    name: 'dyn-14',
    about: DYN,
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "object.metadata.creationTimestamp - timestamp('2020-01-01T00:00:00Z') > duration('1h')"),
  },
  {
    name: 'dyn-15',
    about: DYN,
    expect: 'warned',
    spec: on(DEPLOYMENTS, "timestamp('2020-01-01T00:00:00Z') - object.x < timestamp('2020-01-01T00:00:00Z')"),
  },
  { name: 'dyn-16', about: DYN, expect: 'refused', spec: on(DEPLOYMENTS, 'object.x + true') },
  { name: 'dyn-17', about: DYN, expect: 'warned', spec: on(DEPLOYMENTS, "duration('1h') - object.x > duration('1s')") },
  // format() clauses and arguments, checked when the format string and the argument list are literals
  { name: 'format-1', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%q'.format(['a']) != ''") },
  { name: 'format-2', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%v'.format(['a']) != ''") },
  { name: 'format-3', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%5d'.format([1]) != ''") },
  { name: 'format-4', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%'.format([]) != ''") },
  { name: 'format-5', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%x'.format([true]) != ''") },
  { name: 'format-6', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%d'.format(['a']) != ''") },
  { name: 'format-7', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%s %s'.format(['a']) != ''") },
  {
    name: 'format-8',
    about: FORMAT,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%s'.format([object.x]) != ''"),
  },
  {
    name: 'format-9',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%.2f %d'.format([1.5, 2]) != ''"),
  },
  { name: 'format-10', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%s'.format(['a', 'b']) != ''") },
  { name: 'format-11', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%f'.format([1]) != ''") },
  {
    name: 'format-12',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%e'.format(['x']) != ''"),
  },
  { name: 'format-13', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%b'.format([1.5]) != ''") },
  { name: 'format-14', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%o'.format([true]) != ''") },
  {
    name: 'format-15',
    about: FORMAT,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%s'.format([object.spec]) != ''"),
  },
  {
    name: 'format-16',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%d'.format([object.spec.replicas]) != ''"),
  },
  {
    name: 'format-17',
    about: FORMAT,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%d'.format([object.metadata.name]) != ''"),
  },
  { name: 'format-18', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%.'.format([1]) != ''") },
  { name: 'format-19', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%.x'.format([1]) != ''") },
  {
    name: 'format-20',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%.3f'.format([1.5]) != ''"),
  },
  {
    name: 'format-21',
    about: FORMAT,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%s'.format(object.metadata.labels) != ''"),
  },
  {
    name: 'format-22',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "object.metadata.name.format([1]) != ''"),
  },
  {
    name: 'format-23',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%s %%'.format(['a']) != ''"),
  },
  { name: 'format-24', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%d'.format([optional.of(1)]) != ''") },
  {
    name: 'format-25',
    about: FORMAT,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%s'.format([{'a': 1}]) != ''"),
  },
  { name: 'format-26', about: FORMAT, expect: 'refused', spec: on(DEPLOYMENTS, "'%x'.format([null]) != ''") },
  // type-checking around optional values and equality between object types
  { name: 'warnings-1', about: WARNINGS, expect: 'refused', spec: on(DEPLOYMENTS, 'object.?spec.?replicas == 1') },
  {
    name: 'warnings-2',
    about: WARNINGS,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.?replicas.orValue(0) == optional.of(1)'),
  },
  { name: 'warnings-3', about: WARNINGS, expect: 'accepted', spec: on(DEPLOYMENTS, 'object.spec == oldObject.spec') },
  {
    name: 'warnings-4',
    about: WARNINGS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.spec.template == object.spec.selector'),
  },
  {
    name: 'warnings-5',
    about: WARNINGS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.spec.strategy == object.spec.template'),
  },
  {
    name: 'warnings-6',
    about: WARNINGS,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.replicas == optional.of(1)'),
  },
  {
    name: 'warnings-7',
    about: WARNINGS,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.metadata.?labels == optional.none()'),
  },
  {
    name: 'warnings-8',
    about: WARNINGS,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.orValue(object.spec) == object.spec'),
  },
  {
    name: 'warnings-9',
    about: WARNINGS,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "object.?spec.?replicas.orValue('x') == 'x'"),
  },
  {
    name: 'warnings-10',
    about: WARNINGS,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.?replicas.value() == 1'),
  },
  {
    name: 'warnings-11',
    about: WARNINGS,
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.?replicas == optional.of(1)'),
  },
  {
    name: 'warnings-12',
    about: WARNINGS,
    expect: 'warned',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.?replicas == object.?spec.?paused'),
  },
  {
    name: 'warnings-13',
    about: WARNINGS,
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'object.spec.template == object.spec.template'),
  },
  {
    name: 'warnings-14',
    about: WARNINGS,
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'object.spec.selector == oldObject.spec.selector'),
  },
  {
    name: 'warnings-15',
    about: WARNINGS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.metadata == object.spec.template.metadata'),
  },
  {
    name: 'warnings-16',
    about: WARNINGS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.spec.template in [object.spec.selector]'),
  },
  {
    name: 'warnings-17',
    about: WARNINGS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, '[object.spec.template, object.spec.selector].size() == 2'),
  },
  {
    name: 'warnings-18',
    about: WARNINGS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.spec.template != object.spec.selector'),
  },
  // int(), uint() and double() of bools and other types without an overload
  { name: 'conversions-1', about: CONVERSIONS, expect: 'refused', spec: on(DEPLOYMENTS, 'int(true) == 1') },
  {
    name: 'conversions-2',
    about: CONVERSIONS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'int(object.spec.paused) == 1'),
  },
  { name: 'conversions-3', about: CONVERSIONS, expect: 'refused', spec: on(DEPLOYMENTS, 'uint(true) == 1u') },
  { name: 'conversions-4', about: CONVERSIONS, expect: 'refused', spec: on(DEPLOYMENTS, 'double(true) == 1.0') },
  { name: 'conversions-5', about: CONVERSIONS, expect: 'accepted', spec: on(DEPLOYMENTS, "string(true) == 'true'") },
  { name: 'conversions-6', about: CONVERSIONS, expect: 'accepted', spec: on(DEPLOYMENTS, "int(duration('1s')) == 1") },
  {
    name: 'conversions-7',
    about: CONVERSIONS,
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "int(timestamp('2020-01-01T00:00:00Z')) > 0"),
  },
  {
    name: 'conversions-8',
    about: CONVERSIONS,
    expect: 'refused',
    spec: on(DEPLOYMENTS, "uint(timestamp('2020-01-01T00:00:00Z')) > 0u"),
  },
  {
    name: 'conversions-9',
    about: CONVERSIONS,
    expect: 'refused',
    spec: on(DEPLOYMENTS, "double(timestamp('2020-01-01T00:00:00Z')) > 0.0"),
  },
  {
    name: 'conversions-10',
    about: CONVERSIONS,
    expect: 'refused',
    spec: on(DEPLOYMENTS, "double(duration('1s')) > 0.0"),
  },
  { name: 'conversions-11', about: CONVERSIONS, expect: 'refused', spec: on(DEPLOYMENTS, 'int([1]) == 1') },
  {
    name: 'conversions-12',
    about: CONVERSIONS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'int(object.metadata.labels) == 1'),
  },
  {
    name: 'conversions-13',
    about: CONVERSIONS,
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'int(object.metadata.name) == 1'),
  },
  {
    name: 'conversions-14',
    about: CONVERSIONS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'uint(object.spec.paused) == 1u'),
  },
  {
    name: 'conversions-15',
    about: CONVERSIONS,
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'double(object.spec.paused) == 1.0'),
  },
  { name: 'conversions-16', about: CONVERSIONS, expect: 'refused', spec: on(DEPLOYMENTS, "int(b'1') == 1") },
  { name: 'conversions-17', about: CONVERSIONS, expect: 'accepted', spec: on(DEPLOYMENTS, 'int(1u) == 1') },
  // matchConstraints resource rules mixing '*', '*/*' or 'x/*' with other resources
  {
    name: 'resources-1',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', 'deployments'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-2',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments', '*'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-3',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*/*', 'deployments'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-4',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', '*/scale'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-5',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['deployments/*', 'deployments/scale'],
          },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-6',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['deployments/scale', 'deployments/*'],
          },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-7',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['*/scale', 'deployments/scale'],
          },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-8',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*/*'] }],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-9',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', 'deployments', '*/*'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-10',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*/*', '*/*'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-11',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', '*'] }],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-12',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments/*', '*/scale'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-13',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['*/scale', 'deployments/*', 'deployments/scale'],
          },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-14',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['deployments', 'deployments'],
          },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-15',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', 'deployments/scale'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-16',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['a/b/c'] }],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-17',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*/'] }],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-18',
    about: RESOURCES,
    expect: 'accepted',
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['/x'] }],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-19',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        ],
        excludeResourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', 'deployments'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  {
    name: 'resources-20',
    about: RESOURCES,
    expect: 'refused',
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        ],
        excludeResourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*/*', 'x'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  },
  // a known gap outside the classes: cel-go folds the constant conversion when it plans the program
  {
    name: 'uint-overflow',
    about: 'uint(-1) overflows when the program is planned',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'uint(-1) == 1u'),
    knownGapOn: { '1.28': 'no constant folding', '1.32': 'no constant folding', '1.36': 'no constant folding' },
  },
];
