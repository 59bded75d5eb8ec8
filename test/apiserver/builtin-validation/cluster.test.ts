import { errorsOf, formatIssue } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';

/** The cluster-level kinds' checks without an apiserver: the versions between the measured ones, and the edges. */

const lines = (object: object, version: KubernetesVersion = '1.30') =>
  errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);

const priorityClass = (extra: object) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name: 'high' },
  value: 1000,
  ...extra,
});

test('a user PriorityClass above 1000000000 on every version, system- names by their own rule', () => {
  for (const version of ['1.28', '1.33', '1.37'] as const) {
    expect(lines(priorityClass({ value: 1000000001 }), version)).toEqual([
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ]);
  }
  expect(lines(priorityClass({ value: 1000000000 }))).toEqual([]);
  expect(lines(priorityClass({ metadata: { name: 'system-x' }, value: 2000000000 }))).toEqual([
    expect.stringMatching(/^metadata\.name: Forbidden: priority class names with 'system-' prefix are reserved/),
  ]);
});

test('a PriorityClass preemptionPolicy: empty is missing, others are listed', () => {
  expect(lines(priorityClass({ preemptionPolicy: '' }))).toEqual(['preemptionPolicy: Required value']);
  expect(lines(priorityClass({ preemptionPolicy: 'never' }))).toEqual([
    'preemptionPolicy: Unsupported value: "never": supported values: "PreemptLowerPriority", "Never"',
  ]);
  expect(lines(priorityClass({ preemptionPolicy: 'Never', globalDefault: true }))).toEqual([]);
});

test('a Lease duration and transitions, the value inside the message', () => {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' } };
  expect(lines({ ...lease, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } })).toEqual([
    'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
  ]);
  expect(lines({ ...lease, spec: { leaseDurationSeconds: 1, leaseTransitions: 0 } })).toEqual([]);
  expect(lines(lease)).toEqual([]);
});

const apiService = (spec: object, name = 'v1.example.com') => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name },
  spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1000, ...spec },
});

test('an APIService: the name is version.group, the core group only for v1', () => {
  expect(lines(apiService({}))).toEqual([]);
  expect(lines(apiService({ version: 'v2' }))).toEqual([
    'metadata.name: Invalid value: "v1.example.com": must be `spec.version+"."+spec.group`: "v2.example.com"',
  ]);
  expect(lines(apiService({ group: '' }, 'v1.'))).toEqual([]);
  expect(lines(apiService({ group: '', version: 'v2' }, 'v2.'))).toEqual([
    'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
  ]);
  // a name that is no path segment is object-meta's error only
  expect(lines(apiService({}, 'a/b'))).toEqual([
    expect.stringMatching(/^metadata\.name: Invalid value: "a\/b": may not contain '\/'/),
  ]);
});

test("an APIService's TLS settings: the caBundle's decoded size in the message", () => {
  expect(lines(apiService({ caBundle: 'YWJjZA==' }))).toEqual([
    'spec.caBundle: Invalid value: "4 bytes": local APIServices may not have a caBundle',
  ]);
  expect(
    lines(apiService({ service: { namespace: 'n', name: 's' }, caBundle: 'YWJj', insecureSkipTLSVerify: true })),
  ).toEqual(['spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present']);
  const formatted = errorsOf(builtinObjectIssues(apiService({ groupPriorityMinimum: 20001 }), '1.36')).map(formatIssue);
  expect(formatted).toEqual(['spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000']);
});

const flowSchema = (name: string, spec: object, apiVersion = 'flowcontrol.apiserver.k8s.io/v1') => ({
  apiVersion,
  kind: 'FlowSchema',
  metadata: { name },
  spec,
});
const ALL = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

test('the mandatory catch-all FlowSchema as the cluster holds it is accepted, anything else under its name is not', () => {
  // as `kubectl get flowschema catch-all -o yaml` prints it (the dry-run create of an existing name is a 409)
  const fixed = {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [
          { kind: 'Group', group: { name: 'system:unauthenticated' } },
          { kind: 'Group', group: { name: 'system:authenticated' } },
        ],
        ...ALL,
      },
    ],
  };
  expect(lines(flowSchema('catch-all', fixed))).toEqual([]);
  expect(lines(flowSchema('catch-all', { ...fixed, matchingPrecedence: 9999 }))).toEqual([
    "spec: Invalid value: {…}: spec of 'catch-all' must equal the fixed value",
  ]);
  // the same spec under another name is an ordinary flow schema
  expect(lines(flowSchema('mine', fixed))).toEqual([]);
});

test('the mandatory exempt levels: only spec.exempt may differ', () => {
  const plc = (name: string, spec: object) => ({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec,
  });
  expect(
    lines(plc('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 3, lendablePercent: 10 } })),
  ).toEqual([]);
  const catchAll = { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } };
  expect(lines(plc('catch-all', catchAll))).toEqual([]);
  expect(
    lines(plc('catch-all', { ...catchAll, limited: { ...catchAll.limited, nominalConcurrencyShares: 6 } })),
  ).toEqual(["spec: Invalid value: {…}: spec of 'catch-all' must equal the fixed value"]);
});

test("a PriorityLevelConfiguration's empty type: unsupported up to 1.35, missing from 1.36", () => {
  const plc = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'p' },
    spec: {},
  };
  expect(lines(plc, '1.35')).toEqual(['spec.type: Unsupported value: "": supported values: "Exempt", "Limited"']);
  expect(lines(plc, '1.36')).toEqual(['spec.type: Required value']);
});

test('v1beta3 (to 1.31) defaults a zero nominalConcurrencyShares, v1 keeps it; a negative one is worded per version', () => {
  const plc = (apiVersion: string, shares: number) => ({
    apiVersion: `flowcontrol.apiserver.k8s.io/${apiVersion}`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'p' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
  });
  expect(lines(plc('v1beta3', 0), '1.30')).toEqual([]);
  expect(lines(plc('v1', 0), '1.30')).toEqual([]);
  expect(lines(plc('v1beta3', -1), '1.30')).toEqual([
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be positive',
  ]);
  expect(lines(plc('v1', -1), '1.30')).toEqual([
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
  ]);
});

test("a FlowSchema's verbs and distinguisher: Go's %#v up to 1.33, JSON from 1.34", () => {
  const bad = flowSchema('f', {
    priorityLevelConfiguration: { name: 'p' },
    distinguisherMethod: { type: 'ByPod' },
    rules: [
      {
        subjects: [{ kind: 'Group', group: { name: 'g' } }],
        nonResourceRules: [{ verbs: ['post'], nonResourceURLs: ['/x'] }],
      },
    ],
  });
  expect(lines(bad, '1.33')).toEqual([
    'spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByPod"}: supported values: "ByNamespace", "ByUser"',
    expect.stringMatching(
      /^spec\.rules\[0\]\.nonResourceRules\[0\]\.verbs: Unsupported value: \[\]string\{"post"\}: supported values: "create"/,
    ),
  ]);
  expect(lines(bad, '1.34')).toEqual([
    'spec.distinguisherMethod.type: Unsupported value: {"Type":"ByPod"}: supported values: "ByNamespace", "ByUser"',
    expect.stringMatching(
      /^spec\.rules\[0\]\.nonResourceRules\[0\]\.verbs: Unsupported value: \["post"\]: supported values: "create"/,
    ),
  ]);
});

test("a RuntimeClass's empty handler and tolerations' path: 1.32's words up to 1.35, 1.36's from 1.36", () => {
  const rc = {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: 'r' },
    scheduling: { tolerations: [{ key: 'k', effect: 'Bad' }] },
  };
  expect(lines(rc, '1.35').map((l) => l.split(': ')[0])).toEqual([
    'handler',
    'scheduling.tolerations.tolerations[0].effect',
  ]);
  expect(lines(rc, '1.36').map((l) => l.split(': ').slice(0, 2).join(': '))).toEqual([
    'handler: Required value',
    'scheduling.tolerations[0].effect: Unsupported value',
  ]);
});

test("an EndpointSlice's IPv4 addresses: an IPv4-mapped one is IPv4 up to 1.35, refused from 1.36", () => {
  const slice = (address: string) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 's' },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address] }],
  });
  expect(lines(slice('::ffff:10.1.2.3'), '1.35')).toEqual([]);
  expect(lines(slice('::ffff:10.1.2.3'), '1.36')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "::ffff:10.1.2.3": must not be an IPv4-mapped IPv6 address',
  ]);
  expect(lines(slice('::ffff:127.0.0.1'), '1.30')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "::ffff:127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
  expect(lines(slice('2001:db8::1'), '1.36')).toEqual([
    'endpoints[0].addresses: Invalid value: "2001:db8::1": must be an IPv4 address',
  ]);
});

test('an autoscaling/v1 HPA is checked as the v2 object it converts to', () => {
  const hpa = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 2,
      targetCPUUtilizationPercentage: 0,
    },
  };
  expect(lines(hpa)).toEqual([
    'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
  ]);
  expect(lines({ ...hpa, spec: { ...hpa.spec, targetCPUUtilizationPercentage: 50 } })).toEqual([]);
});
