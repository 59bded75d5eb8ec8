import {
  MatchResourcesSpec,
  MutatingAdmissionPolicyBindingSpec,
  MutatingAdmissionPolicySpec,
  MutationSpec,
} from '../../../lib/apiserver/admission-policy';

/**
 * MutatingAdmissionPolicies (and bindings) whose verdict at create on kube-apiserver v1.36.3 was read from it: the
 * `[real-apiserver]` suite (mutating-corpus.test.ts) compares each with `validateMutatingPolicyManifest`.
 */
const D: MatchResourcesSpec = {
  resourceRules: [
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};
const rules = (operations: string[], resources = ['deployments'], group = 'apps'): MatchResourcesSpec => ({
  resourceRules: [{ apiGroups: [group], apiVersions: ['v1'], operations, resources }],
});
const AC = (expression: string): MutationSpec => ({
  patchType: 'ApplyConfiguration',
  applyConfiguration: { expression },
});
const JP = (expression: string): MutationSpec => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
const m = (
  mutations: MutationSpec[],
  extra: Partial<MutatingAdmissionPolicySpec> = {},
): MutatingAdmissionPolicySpec => ({ matchConstraints: D, reinvocationPolicy: 'Never', mutations, ...extra });

export const MUTATING_CORPUS: Readonly<Record<string, MutatingAdmissionPolicySpec>> = {
  'ac-ok': m([AC('Object{spec: Object.spec{replicas: 3}}')]),
  'ac-labels': m([AC("Object{metadata: Object.metadata{labels: {'a': 'b'}}}")]),
  'jp-ok': m([JP("[JSONPatch{op: 'add', path: '/spec/replicas', value: 3}]")]),
  'jp-escape': m([JP("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), value: 'x'}]")]),
  'no-mutations': { matchConstraints: D, reinvocationPolicy: 'Never' },
  'empty-mutations': m([]),
  'no-patch-type': m([{ applyConfiguration: { expression: 'Object{}' } }]),
  'bad-patch-type': m([{ patchType: 'Merge', applyConfiguration: { expression: 'Object{}' } }]),
  'ac-missing': m([{ patchType: 'ApplyConfiguration' }]),
  'jp-missing': m([{ patchType: 'JSONPatch' }]),
  'ac-with-jp': m([
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: { expression: 'Object{}' },
      jsonPatch: { expression: '[]' },
    },
  ]),
  'jp-with-ac': m([
    { patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' }, jsonPatch: { expression: '[]' } },
  ]),
  'ac-empty-expr': m([AC('')]),
  'jp-empty-expr': m([JP('')]),
  'ac-syntax': m([AC('Object{')]),
  'ac-not-object': m([AC("'x'")]),
  'ac-bool': m([AC('true')]),
  'ac-dyn': m([AC('object')]),
  'ac-map-literal': m([AC("{'spec': {'replicas': 3}}")]),
  'jp-not-list': m([JP("JSONPatch{op: 'add', path: '/spec/replicas', value: 3}")]),
  'jp-list-of-string': m([JP("['a']")]),
  'jp-empty-list': m([JP('[]')]),
  'jp-bad-field': m([JP("[JSONPatch{op: 'add', pth: '/x', value: 3}]")]),
  'jp-op-int': m([JP("[JSONPatch{op: 1, path: '/x', value: 3}]")]),
  'ac-undeclared': m([AC('Object{spec: nope}')]),
  'ac-typo-var': m([AC('Object{spec: Object.spec{replicas: objct.spec.replicas}}')]),
  'no-reinvocation': { matchConstraints: D, mutations: [AC('Object{}')] },
  'bad-reinvocation': m([AC('Object{}')], { reinvocationPolicy: 'Sometimes' }),
  'bad-failure': m([AC('Object{}')], { failurePolicy: 'Maybe' }),
  'no-constraints': { reinvocationPolicy: 'Never', mutations: [AC('Object{}')] },
  'delete-op': m([AC('Object{}')], { matchConstraints: rules(['DELETE']) }),
  'star-op': m([AC('Object{}')], { matchConstraints: rules(['*']) }),
  'connect-op': m([AC('Object{}')], { matchConstraints: rules(['CONNECT'], ['pods/exec'], '') }),
  'match-self': m([AC('Object{}')], {
    matchConstraints: rules(['CREATE'], ['mutatingadmissionpolicies'], 'admissionregistration.k8s.io'),
  }),
  'match-star': m([AC('Object{}')], {
    matchConstraints: {
      resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] }],
    },
  }),
  'match-empty-rules': m([AC('Object{}')], { matchConstraints: { resourceRules: [] } }),
  'match-no-rules': m([AC('Object{}')], { matchConstraints: { namespaceSelector: {} } }),
  variables: m([AC('Object{spec: Object.spec{replicas: variables.r}}')], {
    variables: [{ name: 'r', expression: '3' }],
  }),
  'bad-variable-name': m([AC('Object{}')], { variables: [{ name: 'a-b', expression: '3' }] }),
  'variable-syntax': m([AC('Object{}')], { variables: [{ name: 'a', expression: '3 +' }] }),
  'match-condition': m([AC('Object{}')], {
    matchConditions: [{ name: 'c', expression: "object.metadata.name != 'x'" }],
  }),
  'match-condition-not-bool': m([AC('Object{}')], { matchConditions: [{ name: 'c', expression: "'x'" }] }),
  'match-condition-variables': m([AC('Object{}')], {
    variables: [{ name: 'a', expression: '1' }],
    matchConditions: [{ name: 'c', expression: 'variables.a == 1' }],
  }),
  params: m([AC("Object{metadata: Object.metadata{labels: {'x': params.data['x']}}}")], {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  }),
  'params-undeclared': m([AC('Object{spec: Object.spec{replicas: params.x}}')]),
  authorizer: m([AC("authorizer.group('').resource('pods').check('get').allowed() ? Object{} : Object{}")]),
  'old-object': m([AC('oldObject == null ? Object{} : Object{}')]),
  request: m([AC("request.operation == 'CREATE' ? Object{} : Object{}")]),
  'namespace-object': m([AC("namespaceObject.metadata.name == 'x' ? Object{} : Object{}")]),
  'ac-typo-field': m([AC('Object{spec: Object.spec{replicaz: 3}}')]),
  'ac-wrong-type': m([AC("Object{spec: Object.spec{replicas: 'three'}}")]),
  'ac-nested-type': m([
    AC(
      "Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {'a': 'b'}}}}}",
    ),
  ]),
  'jp-value-object': m([
    JP("[JSONPatch{op: 'add', path: '/spec/selector', value: Object.spec.selector{matchLabels: {'a': 'b'}}}]"),
  ]),
  'jp-ternary': m([JP("has(object.spec.replicas) ? [] : [JSONPatch{op: 'add', path: '/spec/replicas', value: 1}]")]),
  'two-mutations': m([AC('Object{}'), JP('[]')]),
  'ac-message-expr': m([AC("Object{metadata: Object.metadata{annotations: {'a': string(object.spec.replicas)}}}")]),
  'optional-field': m([AC('Object{spec: Object.spec{?replicas: optional.of(3)}}')]),
  'optional-field-spaced': m([AC('Object{spec: Object.spec{ ? replicas : optional.none(), paused: true}}')]),
  'empty-list-ternary': m([
    JP("object.spec.replicas > 3 ? [JSONPatch{op: 'replace', path: '/spec/replicas', value: 3}] : []"),
  ]),
  'jp-from': m([JP("[JSONPatch{op: 'copy', from: '/metadata/name', path: '/metadata/labels/name'}]")]),
  'jp-value-typo': m([JP("[JSONPatch{op: 'add', path: '/x', valeu: 1}]")]),
  'ac-returns-nested': m([AC('Object.spec{replicas: 1}')]),
  'ac-list-of-objects': m([
    AC(
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'a'}]}}}}",
    ),
  ]),
  'math-ext': m([AC('Object{spec: Object.spec{replicas: math.greatest(1, 2)}}')]),
  'deep-expr': m([AC(`${'('.repeat(251)}Object{}${')'.repeat(251)}`)]),
  'too-many-conditions': m([AC('Object{}')], {
    matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `m${i}`, expression: 'true' })),
  }),
  'bad-param-kind': m([AC('Object{}')], { paramKind: { apiVersion: 'v1/x/y', kind: '' } }),
  'dup-match-condition': m([AC('Object{}')], {
    matchConditions: [
      { name: 'a', expression: 'true' },
      { name: 'a', expression: 'true' },
    ],
  }),
  'wildcard-mix': m([AC('Object{}')], { matchConstraints: rules(['CREATE'], ['*', 'deployments']) }),
  'errors-in-every-part': m([JP('[]')], {
    variables: [{ name: 'v', expression: '1 +' }],
    matchConditions: [{ name: 'c', expression: '1' }],
    reinvocationPolicy: '',
  }),
  'many-errors': {
    mutations: [{ patchType: 'X' }, AC('Object{'), JP('1')],
    reinvocationPolicy: 'Z',
    failurePolicy: 'Q',
  },
};
export const MUTATING_BINDINGS: Readonly<Record<string, MutatingAdmissionPolicyBindingSpec>> = {
  ok: { policyName: 'p' },
  'no-policy': {},
  'bad-policy-name': { policyName: 'Not_A_Name' },
  'param-ref': { policyName: 'p', paramRef: { name: 'x', namespace: 'default', parameterNotFoundAction: 'Deny' } },
  'param-ref-both': { policyName: 'p', paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Deny' } },
  'param-ref-no-action': { policyName: 'p', paramRef: { name: 'x' } },
  'param-ref-bad-action': { policyName: 'p', paramRef: { name: 'x', parameterNotFoundAction: 'Maybe' } },
  'match-resources': {
    policyName: 'p',
    matchResources: {
      resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
    },
  },
  'match-delete': {
    policyName: 'p',
    matchResources: {
      resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['DELETE'], resources: ['deployments'] }],
    },
  },
  'bad-selector': {
    policyName: 'p',
    matchResources: { objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } },
  },
  // a field of the validating binding only: pruned, accepted
  'validation-actions': { policyName: 'p', validationActions: ['Deny'] } as MutatingAdmissionPolicyBindingSpec,
};
