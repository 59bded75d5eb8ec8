import { DifferentialCase, mutationOf } from './differential-harness';

/** Differential cases of admissionregistration.k8s.io: each a valid base object with one mutation. */

/**
 * Cases whose messages are compared by verdict and field only: a CEL syntax error, which the repository's CEL parser
 * words otherwise than the apiserver's ANTLR parser (`Syntax error: found = but expecting end of input` where the
 * server says `Syntax error: mismatched input '<EOF>' expecting {...}`, at another column).
 *
 * @internal
 */
export const CEL_SYNTAX_ERROR_CASES: readonly string[] = [
  'matchConditions not compiling',
  'policy: expression not compiling',
  'mutating policy: expression not compiling',
];

const webhook = () => ({
  name: 'check.example.com',
  clientConfig: { service: { name: 'hooks', namespace: 'default', path: '/validate' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
});

const vwc = mutationOf(() => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'admission-diff' },
  webhooks: [webhook()],
}));
const mwc = mutationOf(() => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'admission-diff' },
  webhooks: [webhook()],
}));
const hook = (o: any) => o.webhooks[0];
const url = (u: string) => (o: any) => (hook(o).clientConfig = { url: u });

/** @internal */
export const WEBHOOK_CASES: readonly DifferentialCase[] = [
  vwc('the base'),
  vwc('no webhooks', (o) => delete o.webhooks),
  vwc('name short', (o) => (hook(o).name = 'short')),
  vwc('name two segments', (o) => (hook(o).name = 'a.b')),
  vwc('name Upper.Example.com', (o) => (hook(o).name = 'Upper.Example.com')),
  vwc('name empty', (o) => (hook(o).name = '')),
  vwc('duplicate names', (o) => o.webhooks.push(webhook())),
  vwc('timeoutSeconds 45', (o) => (hook(o).timeoutSeconds = 45)),
  vwc('timeoutSeconds 0', (o) => (hook(o).timeoutSeconds = 0)),
  vwc('timeoutSeconds 30', (o) => (hook(o).timeoutSeconds = 30)),
  vwc('no sideEffects', (o) => delete hook(o).sideEffects),
  vwc('sideEffects Some', (o) => (hook(o).sideEffects = 'Some')),
  vwc('sideEffects NoneOnDryRun', (o) => (hook(o).sideEffects = 'NoneOnDryRun')),
  vwc('sideEffects ""', (o) => (hook(o).sideEffects = '')),
  vwc('failurePolicy Bogus', (o) => (hook(o).failurePolicy = 'Bogus')),
  vwc('matchPolicy Bogus', (o) => (hook(o).matchPolicy = 'Bogus')),
  vwc('no admissionReviewVersions', (o) => delete hook(o).admissionReviewVersions),
  vwc('admissionReviewVersions [v2]', (o) => (hook(o).admissionReviewVersions = ['v2'])),
  vwc('admissionReviewVersions [v1, v1, V3]', (o) => (hook(o).admissionReviewVersions = ['v1', 'v1', 'V3'])),
  vwc('no clientConfig', (o) => (hook(o).clientConfig = {})),
  vwc('url and service', (o) => (hook(o).clientConfig.url = 'https://hooks.example.com/v')),
  vwc('url https', url('https://hooks.example.com:8443/validate')),
  vwc('url http', url('http://hooks.example.com/validate')),
  vwc('url without scheme', url('hooks.example.com/validate')),
  vwc('url with user, query and fragment', url('https://me:pw@hooks.example.com/v?x=1#top')),
  vwc('url without host', url('https:///validate')),
  vwc('url with a space in the host', url('https://exa mple.com/x')),
  vwc('url with a bad escape', url('https://hooks.example.com/%zz')),
  vwc('url with a control character', url('https://hooks.example.com/\u0001')),
  vwc('url with a port of 99999', url('https://hooks.example.com:99999/x')),
  vwc('service without name and namespace', (o) => (hook(o).clientConfig.service = {})),
  // the server reports each at the other's path (found by bench/builtin-differential.ts --per-object sweep)
  vwc('service without name', (o) => delete hook(o).clientConfig.service.name),
  vwc('service without namespace', (o) => (hook(o).clientConfig.service.namespace = '')),
  vwc('service port 0', (o) => (hook(o).clientConfig.service.port = 0)),
  vwc('service port 70000', (o) => (hook(o).clientConfig.service.port = 70000)),
  vwc('service path without slash', (o) => (hook(o).clientConfig.service.path = 'validate')),
  vwc('service path v', (o) => (hook(o).clientConfig.service.path = 'v')),
  vwc('service path //', (o) => (hook(o).clientConfig.service.path = '//')),
  vwc('service path /a//Bad_/', (o) => (hook(o).clientConfig.service.path = '/a//Bad_/')),
  vwc('rule operations Bogus and *', (o) => (hook(o).rules[0].operations = ['*', 'Bogus'])),
  vwc('rule without operations and groups', (o) => (hook(o).rules[0] = { apiVersions: ['v1'], resources: ['pods'] })),
  vwc('rule resources * and pods', (o) => (hook(o).rules[0].resources = ['*', 'pods'])),
  vwc('rule resources */* and pods/status', (o) => (hook(o).rules[0].resources = ['*/*', 'pods/status'])),
  vwc('rule resources pods/* and pods/log', (o) => (hook(o).rules[0].resources = ['pods/*', 'pods/log'])),
  vwc('rule scope Bogus', (o) => (hook(o).rules[0].scope = 'Bogus')),
  vwc('rule apiVersions [*, v1]', (o) => (hook(o).rules[0].apiVersions = ['*', 'v1'])),
  vwc('namespaceSelector operator Bogus', (o) => {
    hook(o).namespaceSelector = { matchExpressions: [{ key: 'a', operator: 'Bogus' }] };
  }),
  vwc('objectSelector label value x y', (o) => (hook(o).objectSelector = { matchLabels: { a: 'x y' } })),
  vwc('matchConditions valid', (o) => {
    hook(o).matchConditions = [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }];
  }),
  vwc('matchConditions not compiling', (o) => {
    hook(o).matchConditions = [{ name: 'bad', expression: 'object.metadata.name ==' }];
  }),
  vwc('matchConditions not bool', (o) => (hook(o).matchConditions = [{ name: 'n', expression: '1 + 1' }])),
  vwc('matchConditions params', (o) => (hook(o).matchConditions = [{ name: 'p', expression: 'params.x == 1' }])),
  vwc('matchConditions bad and duplicate names', (o) => {
    hook(o).matchConditions = [
      { name: 'a b', expression: 'true' },
      { name: 'dup', expression: 'true' },
      { name: 'dup', expression: '' },
    ];
  }),
  vwc('65 matchConditions', (o) => {
    hook(o).matchConditions = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
  }),
  vwc('rules []', (o) => (hook(o).rules = [])),
  mwc('mutating: the base'),
  mwc('mutating: reinvocationPolicy Bogus', (o) => (hook(o).reinvocationPolicy = 'Bogus')),
  mwc('mutating: reinvocationPolicy IfNeeded', (o) => (hook(o).reinvocationPolicy = 'IfNeeded')),
  mwc('mutating: timeoutSeconds 31 and no sideEffects', (o) => {
    hook(o).timeoutSeconds = 31;
    delete hook(o).sideEffects;
  }),
];

const vap = mutationOf(() => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'admission-diff' },
  spec: {
    matchConstraints: {
      resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
    },
    validations: [{ expression: 'object.spec.replicas <= 5' }],
  },
}));
const vapb = mutationOf(() => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'admission-diff' },
  spec: { policyName: 'admission-diff', validationActions: ['Deny'] },
}));

/** Raw admission policies (v1: 1.30 on, so measured on 1.32 and 1.36). @internal */
export const POLICY_CASES: readonly DifferentialCase[] = [
  vap('policy: the base'),
  vap('policy: expression not compiling', (o) => (o.spec.validations[0].expression = 'object.spec.replicas <=')),
  vap('policy: expression not bool', (o) => (o.spec.validations[0].expression = 'object.spec.replicas')),
  vap('policy: failurePolicy Bogus', (o) => (o.spec.failurePolicy = 'Bogus')),
  vap('policy: no validations', (o) => delete o.spec.validations),
  vap('policy: name Bad_Name', (o) => (o.metadata.name = 'Bad_Name')),
  // found by the built-in differential (bench/builtin-differential.ts): synth threw on the absent key, took the value
  vap('policy: a variable without its expression, read by a validation', (o) => {
    o.spec.variables = [{ name: 'big' }];
    o.spec.validations[0].expression = '!variables.big';
  }),
  vap(
    'policy: a variable with an empty expression, unread',
    (o) => (o.spec.variables = [{ name: 'big', expression: '' }]),
  ),
  vap('policy: a namespace selector expression without its key', (o) => {
    o.spec.matchConstraints.namespaceSelector = { matchExpressions: [{ operator: 'In', values: ['a'] }] };
  }),
  vap('policy: a namespace selector value "a b"', (o) => {
    o.spec.matchConstraints.namespaceSelector = { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] };
  }),
  vap('policy: an object selector value of 64 characters', (o) => {
    o.spec.matchConstraints.objectSelector = {
      matchExpressions: [{ key: 'k', operator: 'NotIn', values: ['a'.repeat(64)] }],
    };
  }),
  vapb('binding: a paramRef selector value "-a"', (o) => {
    o.spec.paramRef = {
      selector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['-a'] }] },
      parameterNotFoundAction: 'Deny',
    };
  }),
  vapb('binding: the base'),
  vapb('binding: no validationActions', (o) => delete o.spec.validationActions),
  vapb('binding: Deny and Warn', (o) => (o.spec.validationActions = ['Deny', 'Warn'])),
  vapb('binding: name a/b', (o) => (o.metadata.name = 'a/b')),
  vapb('binding: generateName only', (o) => {
    delete o.metadata.name;
    o.metadata.generateName = 'binding-';
  }),
];

const map = mutationOf(() => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name: 'admission-diff' },
  spec: {
    matchConstraints: {
      resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    },
    reinvocationPolicy: 'Never',
    mutations: [
      {
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' },
      },
    ],
  },
}));
const mapb = mutationOf(() => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name: 'admission-diff' },
  spec: { policyName: 'admission-diff' },
}));

/** Raw mutating admission policies (v1 from 1.36). @internal */
export const MUTATING_POLICY_CASES: readonly DifferentialCase[] = [
  map('mutating policy: the base'),
  map('mutating policy: no reinvocationPolicy', (o) => delete o.spec.reinvocationPolicy),
  map('mutating policy: expression not compiling', (o) => {
    o.spec.mutations[0].applyConfiguration.expression = 'Object{';
  }),
  map('mutating policy: name Bad_Name', (o) => (o.metadata.name = 'Bad_Name')),
  map('mutating policy: a variable without its expression, read by a mutation', (o) => {
    o.spec.variables = [{ name: 'v' }];
    o.spec.mutations[0].applyConfiguration.expression = 'Object{metadata: Object.metadata{labels: {"a": variables.v}}}';
  }),
  map('mutating policy: a namespace selector expression without its key', (o) => {
    o.spec.matchConstraints.namespaceSelector = { matchExpressions: [{ operator: 'Exists' }] };
  }),
  map('mutating policy: a namespace selector value "a b"', (o) => {
    o.spec.matchConstraints.namespaceSelector = { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] };
  }),
  map('mutating policy: operation http (refused twice)', (o) => {
    o.spec.matchConstraints.resourceRules[0].operations = ['http'];
  }),
  map('mutating policy: an unknown field in spec', (o) => (o.spec.bogus = 1)),
  map('mutating policy: an unknown field in a variable', (o) => {
    o.spec.variables = [{ name: 'v', expression: '1', bogus: 'x' }];
  }),
  map('mutating policy: an unknown field in applyConfiguration', (o) => {
    o.spec.mutations[0].applyConfiguration.bogus = 'x';
  }),
  mapb('mutating binding: an unknown field in spec', (o) => (o.spec['example.com/a'] = 'x')),
  mapb('mutating binding: the base'),
  mapb('mutating binding: no policyName', (o) => delete o.spec.policyName),
];
