import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** PriorityClass, Lease and APIService: synth's verdict against the real apiservers'. */

const pc = mutationOf(() => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name: 'high' },
  value: 1000,
}));
const named = (name: string) => (o: any) => (o.metadata.name = name);

const PRIORITY_CLASSES = [
  pc('PriorityClass: the base'),
  pc('PriorityClass: value 2000000000', (o) => (o.value = 2000000000)),
  pc('PriorityClass: value 1000000000', (o) => (o.value = 1000000000)),
  pc('PriorityClass: value 1000000001', (o) => (o.value = 1000000001)),
  pc('PriorityClass: value -2147483648', (o) => (o.value = -2147483648)),
  pc('PriorityClass: no value', (o) => delete o.value),
  pc('PriorityClass: system-foo', named('system-foo')),
  pc('PriorityClass: system-foo with value 2000000000', (o) => {
    o.metadata.name = 'system-foo';
    o.value = 2000000000;
  }),
  pc('PriorityClass: preemptionPolicy Bogus', (o) => (o.preemptionPolicy = 'Bogus')),
  pc('PriorityClass: preemptionPolicy ""', (o) => (o.preemptionPolicy = '')),
  pc('PriorityClass: preemptionPolicy Never', (o) => (o.preemptionPolicy = 'Never')),
  pc('PriorityClass: preemptionPolicy null', (o) => (o.preemptionPolicy = null)),
  pc('PriorityClass: globalDefault', (o) => (o.globalDefault = true)),
  pc('PriorityClass: a long description', (o) => (o.description = 'x'.repeat(5000))),
];

const lease = mutationOf(() => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'leader' },
  spec: { holderIdentity: 'pod-1', leaseDurationSeconds: 15 },
}));

const LEASES = [
  lease('Lease: the base'),
  lease('Lease: no spec', (o) => delete o.spec),
  lease('Lease: leaseDurationSeconds 0', (o) => (o.spec.leaseDurationSeconds = 0)),
  lease('Lease: leaseDurationSeconds -3', (o) => (o.spec.leaseDurationSeconds = -3)),
  lease('Lease: leaseTransitions -1', (o) => (o.spec.leaseTransitions = -1)),
  lease('Lease: leaseTransitions 0', (o) => (o.spec.leaseTransitions = 0)),
  lease('Lease: both bad', (o) => {
    o.spec.leaseDurationSeconds = 0;
    o.spec.leaseTransitions = -2;
  }),
  lease('Lease: holderIdentity ""', (o) => (o.spec.holderIdentity = '')),
  lease('Lease: holderIdentity free text', (o) => (o.spec.holderIdentity = 'a b/c::')),
  // refused by 1.28's decoding; dropped on create by 1.32 and 1.36 (gate CoordinatedLeaderElection off)
  lease('Lease: strategy Bogus', (o) => (o.spec.strategy = 'Bogus')),
  lease('Lease: preferredHolder without strategy', (o) => (o.spec.preferredHolder = 'x')),
  lease('Lease: renewTime', (o) => (o.spec.renewTime = '2024-01-01T00:00:00.000000Z')),
  // found by the additions differential: a MicroTime has six digits of fraction
  lease('Lease: acquireTime without a fraction', (o) => (o.spec.acquireTime = '2026-01-01T00:00:00Z')),
  lease('Lease: finalizer foo (any qualified name)', (o) => (o.metadata.finalizers = ['foo'])),
];

const api = mutationOf(() => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1beta1.metrics.example.com' },
  spec: {
    group: 'metrics.example.com',
    version: 'v1beta1',
    groupPriorityMinimum: 100,
    versionPriority: 100,
    service: { namespace: 'ns', name: 'svc' },
  },
}));
const local = (o: any) => delete o.spec.service;

const API_SERVICES = [
  api('APIService: the base'),
  api('APIService: a name that is not version.group', named('wrong.metrics.example.com')),
  api('APIService: a group that is not the name', (o) => (o.spec.group = 'other.example.com')),
  api('APIService: name a%b', named('a%b')),
  // found by the additions differential: the name function checks the generateName too
  api('APIService: generateName beside the name', (o) => (o.metadata.generateName = 'x-')),
  api('APIService: generateName the name', (o) => (o.metadata.generateName = o.metadata.name)),
  api('APIService: generateName a%b', (o) => (o.metadata.generateName = 'a%b')),
  api('APIService: generateName alone', (o) => {
    o.metadata.generateName = o.metadata.name;
    delete o.metadata.name;
  }),
  api('APIService: groupPriorityMinimum 0', (o) => (o.spec.groupPriorityMinimum = 0)),
  api('APIService: groupPriorityMinimum 20000', (o) => (o.spec.groupPriorityMinimum = 20000)),
  api('APIService: groupPriorityMinimum 20001', (o) => (o.spec.groupPriorityMinimum = 20001)),
  api('APIService: versionPriority 0', (o) => (o.spec.versionPriority = 0)),
  api('APIService: versionPriority 1001', (o) => (o.spec.versionPriority = 1001)),
  api('APIService: no priorities', (o) => {
    delete o.spec.groupPriorityMinimum;
    delete o.spec.versionPriority;
  }),
  api('APIService: a service without name', (o) => (o.spec.service = { namespace: 'ns' })),
  api('APIService: an empty service', (o) => (o.spec.service = {})),
  api('APIService: service port 70000', (o) => (o.spec.service.port = 70000)),
  api('APIService: service port 0', (o) => (o.spec.service.port = 0)),
  api('APIService: service port 8443', (o) => (o.spec.service.port = 8443)),
  api('APIService: a service namespace and name not DNS', (o) => (o.spec.service = { namespace: 'N S', name: 'S_V' })),
  api('APIService: insecureSkipTLSVerify and caBundle', (o) => {
    o.spec.insecureSkipTLSVerify = true;
    o.spec.caBundle = 'YWJj';
  }),
  api('APIService: insecureSkipTLSVerify alone', (o) => (o.spec.insecureSkipTLSVerify = true)),
  api('APIService: local with caBundle', (o) => {
    local(o);
    o.spec.caBundle = 'YWJjZA==';
  }),
  api('APIService: local with insecureSkipTLSVerify', (o) => {
    local(o);
    o.spec.insecureSkipTLSVerify = true;
  }),
  api('APIService: local', local),
  api('APIService: empty group, version v2', (o) => {
    o.metadata.name = 'v2.';
    o.spec.group = '';
    o.spec.version = 'v2';
  }),
  api('APIService: version V1', (o) => {
    o.metadata.name = 'V1.metrics.example.com';
    o.spec.version = 'V1';
  }),
  api('APIService: version 1v', (o) => {
    o.metadata.name = '1v.metrics.example.com';
    o.spec.version = '1v';
  }),
  api('APIService: group Bad_Group', (o) => {
    o.metadata.name = 'v1beta1.Bad_Group';
    o.spec.group = 'Bad_Group';
  }),
  api('APIService: no group nor version', (o) => {
    o.spec.group = '';
    o.spec.version = '';
  }),
];

describeBuiltinDifferential(
  'cluster-level kinds: synth and the apiserver',
  [...PRIORITY_CLASSES, ...LEASES, ...API_SERVICES],
  // the name generated from a generateName ends with random characters
  { verdictOnly: ['APIService: generateName alone'] },
);
