import { CHECKER_CLASSES } from './corpus-checker-classes';
import {
  ValidatingAdmissionPolicyBindingManifest,
  ValidatingAdmissionPolicyManifest,
  ValidatingAdmissionPolicySpec,
} from '../../../lib/apiserver/admission-policy';
import { CrdManifest } from '../../../lib/apiserver/crd-manifest';
import type { OracleVersion } from '../../envtest';

/**
 * ValidatingAdmissionPolicies whose verdict on kube-apiserver v1.32.13 is known: refused at create (HTTP 422),
 * accepted with type-checking warnings (status.typeChecking.expressionWarnings), or accepted clean. The
 * `[real-apiserver]` test checks every one of them against the server and against our checks.
 */
export type Verdict = 'accepted' | 'warned' | 'refused';

export interface CorpusPolicy {
  readonly name: string;
  readonly about: string;
  /** The verdict of kube-apiserver 1.32 (and of the other versions unless `expectOn` names theirs). */
  readonly expect: Verdict;
  /** Where another version's verdict differs. */
  readonly expectOn?: Partial<Record<OracleVersion, Verdict>>;
  /**
   * Where our checks are known to differ from a version's apiserver, and why: the test is then expected to fail
   * (`test.failing`), so it fails once the gap is closed and this entry must go.
   */
  readonly knownGapOn?: Partial<Record<OracleVersion, string>>;
  readonly spec: ValidatingAdmissionPolicySpec;
}

const rules = (group: string, version: string, ...resources: string[]) => ({
  resourceRules: [{ apiGroups: [group], apiVersions: [version], operations: ['CREATE', 'UPDATE'], resources }],
});
const DEPLOYMENTS = rules('apps', 'v1', 'deployments');
const PODS = rules('', 'v1', 'pods');
const WIDGETS = rules('corpus.example.com', 'v1', 'widgets');
const on = (
  matchConstraints: ValidatingAdmissionPolicySpec['matchConstraints'],
  expression: string,
  extra: Partial<ValidatingAdmissionPolicySpec> = {},
): ValidatingAdmissionPolicySpec => ({ matchConstraints, validations: [{ expression }], ...extra });

/** A CRD installed beside the corpus: its own schema types `object` for policies matching widgets. */
export const WIDGET_CRD: CrdManifest = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.corpus.example.com' },
  spec: {
    group: 'corpus.example.com',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    scope: 'Namespaced' as any,
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  owner: { type: 'string' },
                  primary: { type: 'string' },
                  tags: { type: 'array', items: { type: 'string' } },
                  nick: { type: 'string', nullable: true },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
} as CrdManifest;

/** A CRD with two served versions (a field renamed in v2) and a root that preserves unknown fields. */
export const GADGET_CRD: CrdManifest = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.corpus.example.com' },
  spec: {
    group: 'corpus.example.com',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    scope: 'Namespaced' as any,
    versions: ['v1', 'v2'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: {
        openAPIV3Schema: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': name === 'v2' ? true : undefined,
          properties: {
            spec: {
              type: 'object',
              properties: name === 'v1' ? { size: { type: 'integer' } } : { capacity: { type: 'integer' } },
            },
          },
        },
      },
    })),
  },
} as unknown as CrdManifest;
const GADGETS = (version: string) => rules('corpus.example.com', version, 'gadgets');
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

export const CORPUS: readonly CorpusPolicy[] = [
  // accepted, clean
  {
    name: 'replicas-bound',
    about: 'typed field of a built-in kind',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'object.spec.replicas <= 5'),
  },
  {
    name: 'has-macro',
    about: 'has() on an optional field',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, '!has(object.spec.paused) || object.spec.paused == false'),
  },
  {
    name: 'labels-map',
    about: 'metadata.labels is map(string, string)',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "'app' in object.metadata.labels && object.metadata.labels['app'] != ''"),
  },
  {
    name: 'containers-all',
    about: 'a list of typed objects',
    expect: 'accepted',
    spec: on(PODS, "object.spec.containers.all(c, !c.image.endsWith(':latest'))"),
  },
  {
    name: 'user-groups',
    about: 'request.userInfo is typed',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "request.userInfo.groups.exists(g, g == 'admins') || request.userInfo.username == 'root'"),
  },
  {
    name: 'old-object',
    about: 'oldObject is null on create',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'oldObject == null || object.spec.replicas >= oldObject.spec.replicas'),
  },
  {
    name: 'namespace-object',
    about: 'namespaceObject is a hand-made Namespace type',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "namespaceObject.metadata.labels['team'] == 'a'"),
  },
  {
    name: 'authorizer-check',
    about: 'the authz library',
    expect: 'accepted',
    spec: on(
      DEPLOYMENTS,
      "authorizer.group('apps').resource('deployments').namespace(request.namespace).check('delete').allowed()",
    ),
  },
  {
    name: 'message-expression',
    about: 'a string messageExpression',
    expect: 'accepted',
    spec: {
      matchConstraints: DEPLOYMENTS,
      validations: [
        { expression: 'object.spec.replicas <= 5', messageExpression: "'replicas: ' + string(object.spec.replicas)" },
      ],
    },
  },
  {
    name: 'variables',
    about: 'variables keep scalar types',
    expect: 'accepted',
    expectOn: { '1.28': 'warned' },
    spec: on(DEPLOYMENTS, 'variables.replicas <= 5', {
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
    }),
  },
  {
    name: 'widget-own-schema',
    about: "a CRD's own schema",
    expect: 'accepted',
    spec: on(WIDGETS, "object.spec.size < 10 && object.spec.tags.all(t, t != '')"),
  },
  {
    name: 'widget-metadata',
    about: 'a CRD object has the full ObjectMeta',
    expect: 'accepted',
    spec: on(WIDGETS, "object.metadata.namespace != 'kube-system' && object.metadata.generation >= 0"),
  },
  {
    name: 'int-or-string',
    about: 'int-or-string fields are dyn',
    expect: 'accepted',
    spec: on(
      DEPLOYMENTS,
      '!has(object.spec.strategy.rollingUpdate) || object.spec.strategy.rollingUpdate.maxSurge != 0',
    ),
  },
  {
    name: 'wildcard-skipped',
    about: 'a wildcard group is not type-checked (typeChecking is {})',
    expect: 'accepted',
    spec: on(
      {
        resourceRules: [{ apiGroups: ['*'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
      },
      'object.spec.replicaz <= 5',
    ),
  },
  {
    name: 'subresource-skipped',
    about: 'subresources are not type-checked',
    expect: 'accepted',
    spec: on(rules('apps', 'v1', 'deployments/scale'), 'object.spec.replicaz <= 5'),
  },
  {
    name: 'unknown-resource',
    about: 'a resource the server does not have is skipped silently',
    expect: 'accepted',
    spec: on(rules('apps', 'v1', 'nosuchthings'), 'object.spec.replicaz <= 5'),
  },
  {
    name: 'match-condition-typo',
    about: 'errors in matchConditions are never reported after create',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'true', { matchConditions: [{ name: 'typo', expression: 'object.spec.replicaz > 1' }] }),
  },
  {
    name: 'variable-typo',
    about: 'errors in variables are never reported after create',
    expect: 'accepted',
    expectOn: { '1.28': 'warned' },
    spec: on(DEPLOYMENTS, 'variables.r == null', { variables: [{ name: 'r', expression: 'object.spec.replicaz' }] }),
  },
  {
    name: 'variable-object',
    about: 'a variable holding an object loses its type',
    expect: 'accepted',
    expectOn: { '1.28': 'warned' },
    spec: on(DEPLOYMENTS, 'variables.spec.replicaz <= 5', { variables: [{ name: 'spec', expression: 'object.spec' }] }),
  },
  {
    name: 'audit-typo',
    about: 'errors in auditAnnotations are never reported after create',
    expect: 'accepted',
    spec: {
      matchConstraints: DEPLOYMENTS,
      auditAnnotations: [{ key: 'r', valueExpression: 'string(object.spec.replicaz)' }],
    },
  },
  {
    name: 'bad-quantity-literal',
    about: 'a bad quantity() literal is not refused',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "quantity('12xyz').isInteger()"),
  },
  {
    name: 'bad-ip-literal',
    about: 'a bad ip() literal is not refused',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "ip('999.1.1.1').family() == 4"),
  },
  {
    name: 'expensive',
    about: 'no cost limit at create',
    expect: 'accepted',
    spec: on(
      PODS,
      'object.spec.containers.all(a, object.spec.containers.all(b, object.spec.containers.all(c, a.name != b.name || b.name != c.name || true)))',
    ),
  },
  {
    name: 'metadata-namespace',
    about: 'a reserved word selects its escaped field',
    expect: 'accepted',
    expectOn: { '1.28': 'warned' },
    spec: on(DEPLOYMENTS, "object.metadata.namespace != 'kube-system' && has(object.metadata.namespace)"),
  },
  {
    name: 'optional-syntax',
    about: 'optional field selection',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, 'object.?spec.?replicas.orValue(1) <= 5'),
  },
  {
    name: 'null-object',
    about: 'objects are nullable',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, 'object.spec.strategy != null'),
  },
  {
    name: 'audit-null',
    about: 'an audit valueExpression may be null',
    expect: 'accepted',
    spec: { matchConstraints: DEPLOYMENTS, auditAnnotations: [{ key: 'r', valueExpression: 'null' }] },
  },
  {
    name: 'request-options',
    about: 'request.options is dyn',
    expect: 'accepted',
    spec: on(
      DEPLOYMENTS,
      "request.dryRun || !has(request.options.fieldManager) || request.options.fieldManager != 'x'",
    ),
  },
  {
    name: 'gadget-v1',
    about: 'each CRD version is checked against its own schema (v1 has size)',
    expect: 'accepted',
    spec: on(GADGETS('v1'), 'object.spec.size > 0'),
  },
  {
    name: 'params-configmap',
    about: 'params typed by a built-in paramKind',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, "object.spec.replicas <= int(params.data['max'])", {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    }),
  },

  // warned: accepted, then the status controller writes warnings
  {
    name: 'typo-field',
    about: 'an undefined field of a built-in kind',
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.spec.replicaz <= 5'),
  },
  {
    name: 'typo-message',
    about: 'messageExpression is type-checked too',
    expect: 'warned',
    spec: {
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression: 'true', messageExpression: "'x' + object.spec.nme" }],
    },
  },
  {
    name: 'wrong-type',
    about: 'comparing an int field with a string',
    expect: 'warned',
    spec: on(DEPLOYMENTS, "object.spec.replicas == 'three'"),
  },
  {
    name: 'quantity-false-warning',
    about: 'resources.limits is absent from the typed schema (a known false warning)',
    expect: 'warned',
    spec: on(PODS, 'object.spec.containers.all(c, has(c.resources.limits))'),
  },
  {
    name: 'request-resource',
    about: 'authorizer.requestResource is not declared by the type checker',
    expect: 'warned',
    spec: on(DEPLOYMENTS, "authorizer.requestResource.check('update').allowed()"),
  },
  {
    name: 'two-kinds',
    about: 'one warning per kind, joined',
    expect: 'warned',
    spec: on(
      {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['deployments', 'statefulsets'],
          },
        ],
      },
      'object.spec.replicaz <= 5',
    ),
  },
  {
    name: 'widget-typo',
    about: "a typo against a CRD's schema",
    expect: 'warned',
    expectOn: { '1.28': 'accepted' },
    spec: on(WIDGETS, 'object.spec.sise < 10'),
  },
  {
    name: 'widget-nullable-null',
    about: 'a nullable string cannot be compared with null (known false warning)',
    expect: 'warned',
    expectOn: { '1.28': 'accepted' },
    spec: on(WIDGETS, 'object.spec.nick != null'),
  },
  {
    name: 'params-typo',
    about: 'params are typed by the paramKind',
    expect: 'warned',
    spec: on(DEPLOYMENTS, "params.dta['max'] == '1'", { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }),
  },
  {
    name: 'params-unresolved',
    about: 'params is undeclared when the paramKind has no schema',
    expect: 'warned',
    expectOn: { '1.36': 'accepted' },
    spec: on(DEPLOYMENTS, 'params.spec.max == 1', {
      paramKind: { apiVersion: 'nosuch.example.com/v1', kind: 'Limit' },
    }),
  },
  {
    name: 'gadget-both-versions',
    about: 'v2 has no size: a warning for v2 only',
    expect: 'warned',
    expectOn: { '1.28': 'accepted' },
    spec: on(
      {
        resourceRules: [
          {
            apiGroups: ['corpus.example.com'],
            apiVersions: ['v1', 'v2'],
            operations: ['CREATE'],
            resources: ['gadgets'],
          },
        ],
      },
      'object.spec.size > 0',
    ),
  },
  {
    name: 'gadget-v2-preserved-root',
    about: 'a root that preserves unknown fields keeps its declared properties',
    expect: 'accepted',
    spec: on(GADGETS('v2'), 'object.spec.capacity > 0'),
  },
  {
    name: 'gadget-v2-undeclared',
    about: 'an undeclared field under a root that preserves unknown fields',
    expect: 'warned',
    expectOn: { '1.28': 'accepted' },
    spec: on(GADGETS('v2'), 'object.extra > 0'),
  },
  {
    name: 'null-string',
    about: 'a string is not nullable',
    expect: 'warned',
    spec: on(DEPLOYMENTS, 'object.metadata.name != null'),
  },
  {
    name: 'null-list',
    about: 'a list is not nullable',
    expect: 'warned',
    spec: on(PODS, 'object.spec.containers != null'),
  },
  {
    name: 'variable-typed-use',
    about: 'variables holding scalars keep their types',
    expect: 'warned',
    spec: on(DEPLOYMENTS, "variables.replicas == 'three'", {
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
    }),
  },

  // refused at create (HTTP 422)
  { name: 'syntax', about: 'a syntax error', expect: 'refused', spec: on(DEPLOYMENTS, 'object.spec.replicas <=') },
  {
    name: 'undeclared',
    about: 'an undeclared name',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'self.spec.replicas <= 5'),
  },
  {
    name: 'request-typo',
    about: 'a typo under request',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "request.userinfo.username == 'x'"),
  },
  {
    name: 'namespace-typo',
    about: 'a typo under namespaceObject',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "namespaceObject.metadata.label['a'] == 'b'"),
  },
  {
    name: 'not-bool',
    about: 'a validation that is not bool',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'object.spec.replicas + 1'),
  },
  {
    name: 'dyn-result',
    about: 'a dyn result is refused too',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'object.spec.paused'),
  },
  {
    name: 'message-not-string',
    about: 'a messageExpression that is not a string',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression: 'true', messageExpression: 'object.spec.replicas' }],
    },
  },
  {
    name: 'message-authorizer',
    about: 'messageExpression has no authorizer',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression: 'true', messageExpression: "authorizer.path('/x').check('get').reason()" }],
    },
  },
  {
    name: 'audit-not-string',
    about: 'an audit valueExpression that is neither string nor null',
    expect: 'refused',
    spec: { matchConstraints: DEPLOYMENTS, auditAnnotations: [{ key: 'r', valueExpression: '1 + 1' }] },
  },
  {
    name: 'variables-undeclared',
    about: 'variables is declared only when the policy has variables',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'variables.x == 1'),
  },
  {
    name: 'params-undeclared',
    about: 'params is declared only with a paramKind',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'params.max == 1'),
  },
  {
    name: 'match-condition-variables',
    about: 'matchConditions cannot use variables',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', {
      variables: [{ name: 'a', expression: '1' }],
      matchConditions: [{ name: 'm', expression: 'variables.a == 1' }],
    }),
  },
  {
    name: 'bad-regex',
    about: 'a bad regex literal',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "object.metadata.name.matches('[')"),
  },
  {
    name: 'bad-duration',
    about: 'a bad duration literal',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "duration('1x') > duration('1s')"),
  },
  {
    name: 'bad-timestamp',
    about: 'a bad timestamp literal',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "timestamp('yesterday') < timestamp('2020-01-01T00:00:00Z')"),
  },
  {
    name: 'math-ext',
    about: 'math.* is not in 1.32',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'math.greatest(1, 2) == 2'),
  },
  {
    name: 'two-var',
    about: 'two-variable comprehensions are not in 1.32',
    expect: 'refused',
    expectOn: { '1.36': 'accepted' },
    spec: on(DEPLOYMENTS, "object.metadata.labels.all(k, v, v != '')"),
  },
  {
    name: 'semver',
    about: 'the semver library is not in 1.32',
    expect: 'refused',
    expectOn: { '1.36': 'accepted' },
    spec: on(DEPLOYMENTS, "isSemver('1.0.0') && semver('1.0.0').major() == 1"),
  },
  {
    name: 'base64',
    about: 'the encoders library is not in 1.32',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "base64.encode(b'x') == 'eA=='"),
  },
  {
    name: 'cel-bind',
    about: 'cel.bind is not offered',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'cel.bind(r, object.spec.replicas, r <= 5)'),
  },
  {
    name: 'list-slice',
    about: 'newer list helpers are not in 1.32',
    expect: 'refused',
    expectOn: { '1.36': 'accepted' },
    spec: on(DEPLOYMENTS, 'object.spec.template.spec.containers.slice(0, 1).size() == 1'),
  },
  {
    name: 'string-reverse',
    about: 'string reverse() is not in 1.32',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "object.metadata.name.reverse() != ''"),
  },
  {
    name: 'mixed-list',
    about: 'list literals must be homogeneous',
    expect: 'refused',
    spec: on(DEPLOYMENTS, "object.metadata.name in [1, 'a']"),
  },
  {
    name: 'deep-nesting',
    about: 'parser nesting over 250',
    expect: 'refused',
    spec: on(DEPLOYMENTS, `${'('.repeat(251)}1${')'.repeat(251)} == 1`),
  },
  {
    name: 'long-sum',
    about: '250 chained additions exceed the recursion depth',
    expect: 'refused',
    spec: on(DEPLOYMENTS, `object.spec.replicas${' + 1'.repeat(250)} > 0`),
  },
  {
    name: 'long-and',
    about: 'long && chains are balanced by the parser',
    expect: 'accepted',
    spec: on(DEPLOYMENTS, Array.from({ length: 300 }, () => 'true').join(' && ')),
  },
  {
    name: 'format-mixed-list',
    about: 'format() takes a mixed list literal',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "'%s has %d'.format([object.metadata.name, 2]) != ''"),
  },
  {
    name: 'audit-null-ternary',
    about: 'a string and null do not unify in a conditional',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      auditAnnotations: [{ key: 'r', valueExpression: "object.spec.replicas > 3 ? 'many' : null" }],
    },
  },
  {
    name: 'too-many-match-conditions',
    about: 'at most 64 matchConditions',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', { matchConditions: many(65, (i) => ({ name: `m${i}`, expression: 'true' })) }),
  },
  {
    name: 'too-many-audit-annotations',
    about: 'at most 20 auditAnnotations',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      auditAnnotations: many(21, (i) => ({ key: `k${i}`, valueExpression: "'v'" })),
    },
  },
  {
    name: 'bad-match-condition-name',
    about: 'a match condition name is a qualified name',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', { matchConditions: [{ name: 'not a name!', expression: 'true' }] }),
  },
  {
    name: 'audit-key-duplicate',
    about: 'audit annotation keys are unique and qualified',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      auditAnnotations: [
        { key: 'a', valueExpression: "'x'" },
        { key: 'a', valueExpression: "'y'" },
        { key: 'b c', valueExpression: "'z'" },
      ],
    },
  },
  {
    name: 'match-condition-not-bool',
    about: 'a match condition must be bool',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', { matchConditions: [{ name: 'm', expression: "'yes'" }] }),
  },
  {
    name: 'bad-reason',
    about: 'reason accepts Forbidden, Invalid, RequestEntityTooLarge',
    expect: 'refused',
    spec: { matchConstraints: DEPLOYMENTS, validations: [{ expression: 'true', reason: 'Conflict' }] },
  },
  {
    name: 'bad-variable-name',
    about: 'a variable name must be a CEL identifier',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', { variables: [{ name: 'my-var', expression: '1' }] }),
  },
  {
    name: 'dup-match-condition',
    about: 'match condition names are unique',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', {
      matchConditions: [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'true' },
      ],
    }),
  },
  {
    name: 'no-validations',
    about: 'validations or auditAnnotations required',
    expect: 'refused',
    spec: { matchConstraints: DEPLOYMENTS },
  },
  // what the versions' environments and messages differ in
  {
    name: 'optional-index',
    about: 'optional index syntax (1.29)',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "object.metadata.labels[?'app'].orValue('') != 'x'"),
  },
  {
    name: 'sets-library',
    about: 'the sets extension (1.30)',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, "sets.contains(['a', 'b'], ['a'])"),
  },
  {
    name: 'format-library',
    about: 'the format library (1.32)',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(DEPLOYMENTS, '!format.dns1123Label().validate(object.metadata.name).hasValue()'),
  },
  {
    name: 'authz-selectors',
    about: 'field and label selectors in authorizer checks (1.32)',
    expect: 'accepted',
    expectOn: { '1.28': 'refused' },
    spec: on(
      DEPLOYMENTS,
      "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').check('list').allowed()",
    ),
  },
  {
    name: 'untyped-method-operand',
    about: 'an undeclared method call as an operand of &&',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'object.metadata.name.nosuch() && true'),
  },
  {
    name: 'bad-regex-message',
    about: 'a bad regex literal in a messageExpression',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression: 'true', messageExpression: "object.metadata.name.matches('(') ? 'a' : 'b'" }],
    },
  },
  {
    name: 'bad-duration-variable',
    about: 'a bad duration literal in a variable',
    expect: 'refused',
    spec: on(DEPLOYMENTS, 'true', { variables: [{ name: 'd', expression: "duration('5 minutes')" }] }),
  },
  {
    name: 'star-and-operations',
    about: "'*' beside other operations",
    expect: 'refused',
    spec: on(
      {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*', 'CREATE'], resources: ['deployments'] },
        ],
      },
      'true',
    ),
  },
  {
    name: 'star-and-groups',
    about: "'*' beside other API groups and versions",
    expect: 'refused',
    spec: on(
      {
        resourceRules: [
          { apiGroups: ['*', 'apps'], apiVersions: ['v1', '*'], operations: ['CREATE'], resources: ['deployments'] },
        ],
      },
      'true',
    ),
  },
  {
    name: 'constraint-bad-selector',
    about: 'a bad object selector in matchConstraints',
    expect: 'refused',
    spec: on({ ...DEPLOYMENTS, objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }, 'true'),
  },
  {
    name: 'many-errors',
    about: 'all errors in one answer',
    expect: 'refused',
    spec: {
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression: 'object.x +' }, { expression: 'nope == 1', reason: 'Bad' }],
      failurePolicy: 'Sometimes',
    },
  },
  ...CHECKER_CLASSES,
];

/** The API version of admission policies a version serves (1.28: v1beta1, behind the ValidatingAdmissionPolicy gate). */
export function policyApiVersionOn(version: OracleVersion): ValidatingAdmissionPolicyManifest['apiVersion'] {
  return version === '1.28' ? 'admissionregistration.k8s.io/v1beta1' : 'admissionregistration.k8s.io/v1';
}

/**
 * A server message as the local checks can reproduce it: without the per-process number the server appends to type
 * names (`Deployment950894724.spec`), and with syntax errors (ANTLR's wording) reduced to `Syntax error` (ANTLR
 * recovers and may report several in a row where the local parser stops at the first: a run counts as one).
 */
export function normalise(message: string): string {
  return message
    .replace(/\b([A-Z][a-zA-Z]*[a-z])\d+\b/g, '$1')
    .replace(/ERROR: <input>:-?\d+:\d+: Syntax error: [^\n]*(\n \| [^\n]*)*/g, 'ERROR: Syntax error')
    .replace(/ERROR: Syntax error(\nERROR: Syntax error)+/g, 'ERROR: Syntax error');
}

/** The verdict of `version`'s apiserver on `p`. */
export function expectedOn(p: CorpusPolicy, version: OracleVersion): Verdict {
  return p.expectOn?.[version] ?? p.expect;
}

/** The corpus entry as a manifest (`corpus-<name>`). */
export function corpusManifest(p: CorpusPolicy, version: OracleVersion = '1.32'): ValidatingAdmissionPolicyManifest {
  return {
    apiVersion: policyApiVersionOn(version),
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: `corpus-${p.name}` },
    spec: { failurePolicy: 'Fail', ...p.spec },
  };
}

const binding = (
  name: string,
  spec: ValidatingAdmissionPolicyBindingManifest['spec'],
): ValidatingAdmissionPolicyBindingManifest => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec,
});

/** Bindings: accepted and refused at create (dry run). */
export const BINDINGS: readonly ValidatingAdmissionPolicyBindingManifest[] = [
  binding('deny', { policyName: 'corpus-replicas-bound', validationActions: ['Deny'] }),
  binding('warn-audit-params', {
    policyName: 'corpus-params-configmap',
    validationActions: ['Warn', 'Audit'],
    paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
    matchResources: { namespaceSelector: { matchLabels: { team: 'a' } } },
  }),
  binding('deny-and-warn', { policyName: 'p', validationActions: ['Deny', 'Warn'] }),
  binding('no-actions', { policyName: 'p', validationActions: [] }),
  binding('duplicate-action', { policyName: 'p', validationActions: ['Audit', 'Audit', 'Block'] }),
  binding('bad-param-ref', {
    policyName: 'Not_A_Name',
    validationActions: ['Deny'],
    paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Maybe' },
  }),
  binding('no-param-target', {
    policyName: 'p',
    validationActions: ['Deny'],
    paramRef: { parameterNotFoundAction: 'Allow' },
  }),
  binding('bad-selector', {
    policyName: 'p',
    validationActions: ['Deny'],
    matchResources: { objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } },
  }),
  binding('bad-namespace-selector', {
    policyName: 'p',
    validationActions: ['Deny'],
    matchResources: { namespaceSelector: { matchLabels: { 'a b': 'c' } } },
  }),
  binding('bad-rules', {
    policyName: 'p',
    validationActions: ['Deny'],
    matchResources: {
      resourceRules: [
        { apiGroups: ['*', 'apps'], apiVersions: ['v1'], operations: ['CREATE', '*'], resources: ['deployments'] },
      ],
    },
  }),
];
