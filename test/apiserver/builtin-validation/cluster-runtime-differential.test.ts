import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** RuntimeClass, EndpointSlice and autoscaling/v1 HorizontalPodAutoscaler: synth's verdict against the apiservers'. */

const rc = mutationOf(() => ({
  apiVersion: 'node.k8s.io/v1',
  kind: 'RuntimeClass',
  metadata: { name: 'gvisor' },
  handler: 'runsc',
}));

const RUNTIME_CLASSES = [
  rc('RuntimeClass: the base'),
  rc('RuntimeClass: no handler', (o) => delete o.handler),
  rc('RuntimeClass: handler Bad_Handler', (o) => (o.handler = 'Bad_Handler')),
  rc('RuntimeClass: handler a.b', (o) => (o.handler = 'a.b')),
  // found by bench/builtin-differential.ts: tolerations alike but for their seconds are one too many
  rc('RuntimeClass: a toleration repeated', (o) => {
    const t = { key: 's', operator: 'Exists', effect: 'NoSchedule' };
    o.scheduling = { tolerations: [t, { ...t }] };
  }),
  rc('RuntimeClass: a toleration repeated with seconds', (o) => {
    const t = { key: 's', operator: 'Exists', effect: 'NoExecute' };
    o.scheduling = { tolerations: [t, { ...t, tolerationSeconds: 5 }, { ...t, value: '' }] };
  }),
  rc('RuntimeClass: tolerations alike but for the value', (o) => {
    o.scheduling = {
      tolerations: [
        { key: 's', operator: 'Equal', value: 'a' },
        { key: 's', operator: 'Equal', value: 'b' },
      ],
    };
  }),
  rc('RuntimeClass: a negative overhead and a bad resource name', (o) => {
    o.overhead = { podFixed: { cpu: '100m', memory: '-1Mi', 'bad name': '1' } };
  }),
  rc('RuntimeClass: overhead', (o) => (o.overhead = { podFixed: { cpu: '100m', memory: '20Mi' } })),
  rc('RuntimeClass: a bad nodeSelector', (o) => (o.scheduling = { nodeSelector: { 'a b': 'x', k: 'v v' } })),
  rc('RuntimeClass: bad tolerations', (o) => {
    o.scheduling = {
      tolerations: [
        { key: 'k', operator: 'Bogus' },
        { operator: 'Equal', value: 'x' },
        { key: 'k', effect: 'Bad' },
      ],
    };
  }),
  rc('RuntimeClass: scheduling', (o) => {
    o.scheduling = {
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }],
    };
  }),
];

const es = mutationOf(() => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web-1' },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.1.2.3'] }],
  ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
}));
const addresses = (o: any, list: string[]) => (o.endpoints = [{ addresses: list }]);
const zones = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `z${i}` }));

const ENDPOINT_SLICES = [
  es('EndpointSlice: the base'),
  // found by bench/builtin-differential.ts: a node name set, even empty, is validated
  es('EndpointSlice: nodeName ""', (o) => (o.endpoints = [{ addresses: ['10.0.0.5'], nodeName: '' }])),
  es('EndpointSlice: nodeName Bad_Node', (o) => (o.endpoints = [{ addresses: ['10.0.0.5'], nodeName: 'Bad_Node' }])),
  es('EndpointSlice: no addressType', (o) => delete o.addressType),
  es('EndpointSlice: addressType IP', (o) => (o.addressType = 'IP')),
  es('EndpointSlice: FQDN', (o) => {
    o.addressType = 'FQDN';
    addresses(o, ['db.example.com', 'db.example.com.']);
  }),
  es('EndpointSlice: bad FQDNs', (o) => {
    o.addressType = 'FQDN';
    addresses(o, ['Bad_Name', 'nodot']);
  }),
  es('EndpointSlice: bad IPv4 addresses', (o) =>
    addresses(o, ['1.2.3', '::1', '0.0.0.0', '127.0.0.1', '169.254.1.1', '224.0.0.1', '010.1.2.3']),
  ),
  es('EndpointSlice: bad IPv6 addresses', (o) => {
    o.addressType = 'IPv6';
    addresses(o, ['10.1.2.3', '::', '::1', 'fe80::1', '2001:db8::1', 'ff02::1']);
  }),
  es('EndpointSlice: endpoints without addresses', (o) => (o.endpoints = [{ addresses: [] }, {}])),
  es('EndpointSlice: hostname Bad.Host', (o) => (o.endpoints[0].hostname = 'Bad.Host')),
  es('EndpointSlice: nodeName Bad_Node', (o) => (o.endpoints[0].nodeName = 'Bad_Node')),
  es('EndpointSlice: bad ports', (o) => {
    o.ports = [
      { name: 'Bad_Name', port: 80 },
      { name: 'http', protocol: 'Bogus' },
      { name: 'http' },
      { port: 70000, appProtocol: 'a b' },
      {},
    ];
  }),
  es('EndpointSlice: two unnamed ports', (o) => (o.ports = [{ port: 80 }, { port: 81 }])),
  es('EndpointSlice: no endpoints nor ports', (o) => {
    delete o.endpoints;
    delete o.ports;
  }),
  es('EndpointSlice: conditions, targetRef, zone and hints', (o) => {
    o.endpoints = [
      {
        addresses: ['10.1.2.3'],
        conditions: { ready: true },
        targetRef: { kind: 'Pod', name: 'x' },
        zone: 'z z',
        hints: { forZones: [{ name: '' }] },
      },
    ];
  }),
  // found by the additions differential: hints are validated (validateHints)
  es('EndpointSlice: a zone hint /', (o) => (o.endpoints[0].hints = { forZones: [{ name: '/' }] })),
  es('EndpointSlice: a zone hint twice', (o) => (o.endpoints[0].hints = { forZones: [{ name: 'a' }, { name: 'a' }] })),
  es('EndpointSlice: a bad zone hint twice', (o) => {
    o.endpoints[0].hints = { forZones: [{ name: 'a/' }, { name: 'a/' }] };
  }),
  es('EndpointSlice: 8 zone hints', (o) => (o.endpoints[0].hints = { forZones: zones(8) })),
  es('EndpointSlice: 9 zone hints, one bad', (o) => {
    o.endpoints[0].hints = { forZones: [...zones(8), { name: '/' }] };
  }),
  es('EndpointSlice: a zone hint without name', (o) => (o.endpoints[0].hints = { forZones: [{}] })),
  // forNodes: 1.33 on (unknown to the decoding of 1.28 and 1.32)
  es('EndpointSlice: node hints Bad_Node and ""', (o) => {
    o.endpoints[0].hints = { forNodes: [{ name: 'Bad_Node' }, { name: '' }] };
  }),
  es('EndpointSlice: a node hint twice', (o) => (o.endpoints[0].hints = { forNodes: [{ name: 'n' }, { name: 'n' }] })),
  es('EndpointSlice: 9 node hints', (o) => (o.endpoints[0].hints = { forNodes: zones(9) })),
  es('EndpointSlice: 9 zone hints and a bad node hint', (o) => {
    o.endpoints[0].hints = { forZones: zones(9), forNodes: [{ name: 'B' }] };
  }),
];

const hpa = mutationOf(() => ({
  apiVersion: 'autoscaling/v1',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 3,
    targetCPUUtilizationPercentage: 80,
  },
}));

const HPAS = [
  hpa('HPA v1: the base'),
  hpa('HPA v1: minReplicas 0', (o) => (o.spec.minReplicas = 0)),
  hpa('HPA v1: minReplicas -1', (o) => (o.spec.minReplicas = -1)),
  hpa('HPA v1: maxReplicas under minReplicas', (o) => {
    o.spec.minReplicas = 5;
    o.spec.maxReplicas = 3;
  }),
  hpa('HPA v1: maxReplicas 0', (o) => (o.spec.maxReplicas = 0)),
  hpa('HPA v1: targetCPUUtilizationPercentage 0', (o) => (o.spec.targetCPUUtilizationPercentage = 0)),
  hpa('HPA v1: targetCPUUtilizationPercentage -5', (o) => (o.spec.targetCPUUtilizationPercentage = -5)),
  hpa('HPA v1: no minReplicas nor target', (o) => {
    delete o.spec.minReplicas;
    delete o.spec.targetCPUUtilizationPercentage;
  }),
  hpa('HPA v1: an empty scaleTargetRef', (o) => (o.spec.scaleTargetRef = { kind: '', name: '' })),
  hpa(
    'HPA v1: a bad scaleTargetRef',
    (o) => (o.spec.scaleTargetRef = { kind: 'Deploy/x', name: 'a/b', apiVersion: 'x/y/z' }),
  ),
];

describeBuiltinDifferential(
  'RuntimeClass, EndpointSlice and HPA v1: synth and the apiserver',
  [...RUNTIME_CLASSES, ...ENDPOINT_SLICES, ...HPAS],
  {
    // resource names and quantities are worded as the pods area words them (the value after the message)
    verdictOnly: ['RuntimeClass: a negative overhead and a bad resource name', 'RuntimeClass: bad tolerations'],
  },
);
