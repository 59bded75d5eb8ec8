import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** networking.k8s.io/v1 NetworkPolicy, Ingress and IngressClass: synth's verdict against the real apiservers'. */

const policy = mutationOf(() => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'n' },
  spec: {
    podSelector: { matchLabels: { app: 'a' } },
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ podSelector: {} }], ports: [{ port: 80 }] }],
  },
}));
const port = (o: any) => o.spec.ingress[0].ports[0];
const from = (o: any, peers: object[]) => (o.spec.ingress[0].from = peers);

const NETWORK_POLICY_CASES = [
  policy('NetworkPolicy: the base'),
  policy('policyTypes Bogus', (o) => (o.spec.policyTypes = ['Bogus'])),
  policy('three policyTypes', (o) => (o.spec.policyTypes = ['Ingress', 'Egress', 'Ingress'])),
  policy('three policyTypes, one unsupported', (o) => (o.spec.policyTypes = ['Egress', 'Ingress', '@'])),
  policy('policyTypes Ingress and Egress', (o) => (o.spec.policyTypes = ['Ingress', 'Egress'])),
  policy('no podSelector', (o) => delete o.spec.podSelector),
  policy('podSelector value x y', (o) => (o.spec.podSelector = { matchLabels: { a: 'x y' } })),
  policy('podSelector In without values', (o) => {
    o.spec.podSelector = { matchExpressions: [{ key: 'a', operator: 'In' }] };
  }),
  policy('protocol ICMP', (o) => (port(o).protocol = 'ICMP')),
  policy('protocol SCTP', (o) => (port(o).protocol = 'SCTP')),
  policy('port 0', (o) => (port(o).port = 0)),
  policy('port 70000', (o) => (port(o).port = 70000)),
  policy('port name Bad_', (o) => (port(o).port = 'Bad_')),
  policy('port name http', (o) => (port(o).port = 'http')),
  policy('endPort below port', (o) => (port(o).endPort = 79)),
  policy('endPort after a named port', (o) => (o.spec.ingress[0].ports[0] = { port: 'http', endPort: 90 })),
  policy('endPort without port', (o) => (o.spec.ingress[0].ports[0] = { endPort: 90 })),
  policy('endPort 70000', (o) => (port(o).endPort = 70000)),
  policy('endPort 90', (o) => (port(o).endPort = 90)),
  policy('ipBlock 10.0.0.0/33', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/33' } }])),
  policy('ipBlock without cidr', (o) => from(o, [{ ipBlock: { cidr: '' } }])),
  policy('except outside cidr', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] } }])),
  policy('except equal to cidr', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] } }])),
  policy('except inside cidr', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }])),
  policy('except of the other family', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: ['fd00::/64'] } }])),
  policy('except x', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: ['x'] } }])),
  policy('except with a bad cidr', (o) => from(o, [{ ipBlock: { cidr: 'x', except: ['10.1.0.0/16'] } }])),
  // found by the additions differential: a cidr that does not parse leaves its excepts unchecked
  policy('bad except with a bad cidr', (o) => from(o, [{ ipBlock: { cidr: '1.5', except: ['localhost'] } }])),
  policy('outside except with a cidr with bits beyond its prefix', (o) => {
    from(o, [{ ipBlock: { cidr: '10.0.0.1/8', except: ['11.0.0.0/16'] } }]);
  }),
  policy('except with a leading zero inside the cidr', (o) => {
    from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: ['010.1.0.0/16', '011.1.0.0/16'] } }]);
  }),
  policy('ipBlock 10.0.0.1/8 (bits beyond the prefix)', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.1/8' } }])),
  policy('ipBlock 010.0.0.0/8 (leading zero)', (o) => from(o, [{ ipBlock: { cidr: '010.0.0.0/8' } }])),
  policy('ipBlock fd00::/64', (o) => from(o, [{ ipBlock: { cidr: 'fd00::/64' } }])),
  policy('ipBlock and podSelector', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }])),
  policy('podSelector and namespaceSelector', (o) => from(o, [{ namespaceSelector: {}, podSelector: {} }])),
  policy('an empty peer', (o) => from(o, [{}])),
  policy('namespaceSelector In without values', (o) => {
    from(o, [{ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }]);
  }),
  policy('an empty egress peer', (o) => (o.spec.egress = [{ to: [{}] }])),
  policy('egress port 0', (o) => (o.spec.egress = [{ ports: [{ port: 0 }] }])),
  policy('ports [null]', (o) => (o.spec.ingress[0].ports = [null])),
  policy('from [null]', (o) => (o.spec.ingress[0].from = [null])),
  policy('protocol "" (only an absent one is defaulted)', (o) => (port(o).protocol = '')),
  policy('port ""', (o) => (port(o).port = '')),
  policy('policyTypes [""]', (o) => (o.spec.policyTypes = [''])),
  policy('except [""]', (o) => from(o, [{ ipBlock: { cidr: '10.0.0.0/8', except: [''] } }])),
];

const ingress = mutationOf(() => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'i' },
  spec: {
    rules: [
      {
        host: 'a.example.com',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] },
      },
    ],
  },
}));
const path = (o: any) => o.spec.rules[0].http.paths[0];

const INGRESS_CASES = [
  ingress('Ingress: the base'),
  ingress('host *.example.com', (o) => (o.spec.rules[0].host = '*.example.com')),
  ingress('host a.*.example.com', (o) => (o.spec.rules[0].host = 'a.*.example.com')),
  ingress('host 1.2.3.4', (o) => (o.spec.rules[0].host = '1.2.3.4')),
  ingress('host A.com', (o) => (o.spec.rules[0].host = 'A.com')),
  ingress('host a.com:80', (o) => (o.spec.rules[0].host = 'a.com:80')),
  ingress('no host', (o) => delete o.spec.rules[0].host),
  ingress('Prefix path foo', (o) => (path(o).path = 'foo')),
  ingress('Exact path foo', (o) => {
    path(o).path = 'foo';
    path(o).pathType = 'Exact';
  }),
  ingress('ImplementationSpecific path foo', (o) => {
    path(o).path = 'foo';
    path(o).pathType = 'ImplementationSpecific';
  }),
  ingress('ImplementationSpecific without path', (o) => {
    delete path(o).path;
    path(o).pathType = 'ImplementationSpecific';
  }),
  ingress('Prefix without path', (o) => delete path(o).path),
  ingress('path /a//b', (o) => (path(o).path = '/a//b')),
  ingress('path /a/./b', (o) => (path(o).path = '/a/./b')),
  ingress('path /a/..', (o) => (path(o).path = '/a/..')),
  ingress('path /a%2fb', (o) => (path(o).path = '/a%2fb')),
  ingress('ImplementationSpecific path /a//b', (o) => {
    path(o).path = '/a//b';
    path(o).pathType = 'ImplementationSpecific';
  }),
  ingress('Prefix path /a(.*)', (o) => (path(o).path = '/a(.*)')),
  ingress('no pathType', (o) => delete path(o).pathType),
  ingress('pathType Bogus', (o) => (path(o).pathType = 'Bogus')),
  ingress(
    'resource and service backends',
    (o) => (path(o).backend.resource = { kind: 'K', name: 'n', apiGroup: 'x.com' }),
  ),
  ingress('no backend', (o) => (path(o).backend = {})),
  ingress('service backend without port', (o) => delete path(o).backend.service.port),
  ingress('service port name and number', (o) => (path(o).backend.service.port = { number: 80, name: 'http' })),
  ingress('service port 70000', (o) => (path(o).backend.service.port = { number: 70000 })),
  ingress('service port name Bad_', (o) => (path(o).backend.service.port = { name: 'Bad_' })),
  ingress('service port name http', (o) => (path(o).backend.service.port = { name: 'http' })),
  ingress('service name Bad', (o) => (path(o).backend.service.name = 'Bad')),
  ingress('service name 1abc', (o) => (path(o).backend.service.name = '1abc')),
  ingress('service without name', (o) => delete path(o).backend.service.name),
  ingress('no rules, no defaultBackend', (o) => (o.spec = {})),
  ingress('empty rules, no defaultBackend', (o) => (o.spec = { rules: [] })),
  ingress(
    'a defaultBackend only',
    (o) => (o.spec = { defaultBackend: { service: { name: 's', port: { number: 80 } } } }),
  ),
  ingress('http without paths', (o) => (o.spec.rules[0].http.paths = [])),
  ingress('tls host A_b', (o) => (o.spec.tls = [{ hosts: ['A_b'] }])),
  ingress('tls host *.a.com', (o) => (o.spec.tls = [{ hosts: ['*.a.com'] }])),
  ingress('tls secretName Bad', (o) => (o.spec.tls = [{ hosts: ['a.com'], secretName: 'Bad' }])),
  ingress('ingressClassName Bad', (o) => (o.spec.ingressClassName = 'Bad')),
  ingress('ingressClassName and the same class annotation', (o) => {
    o.spec.ingressClassName = 'nginx';
    o.metadata.annotations = { 'kubernetes.io/ingress.class': 'nginx' };
  }),
  ingress('ingressClassName and another class annotation', (o) => {
    o.spec.ingressClassName = 'nginx';
    o.metadata.annotations = { 'kubernetes.io/ingress.class': 'other' };
  }),
  ingress(
    'the class annotation only, Bad_ x',
    (o) => (o.metadata.annotations = { 'kubernetes.io/ingress.class': 'Bad_ x' }),
  ),
  ingress('defaultBackend resource without kind', (o) => (o.spec.defaultBackend = { resource: { name: 'x' } })),
  ingress('resource name a/b', (o) => (path(o).backend = { resource: { kind: 'K', name: 'a/b' } })),
  ingress('paths [null]', (o) => (o.spec.rules[0].http.paths = [null])),
  ingress('rules [null]', (o) => (o.spec.rules = [null])),
  ingress('pathType ""', (o) => (path(o).pathType = '')),
  ingress('http null', (o) => (o.spec.rules[0].http = null)),
  ingress('tls hosts [""]', (o) => (o.spec.tls = [{ hosts: [''] }])),
  ingress('ingressClassName ""', (o) => (o.spec.ingressClassName = '')),
  ingress('backend service {}', (o) => (path(o).backend = { service: {} })),
  ingress('backend resource {}', (o) => (path(o).backend = { resource: {} })),
  ingress(
    'resource apiGroup Bad_',
    (o) => (path(o).backend = { resource: { kind: 'K', name: 'n', apiGroup: 'Bad_' } }),
  ),
];

const ingressClass = mutationOf(() => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name: 'c' },
  spec: { controller: 'example.com/ingress' },
}));

const INGRESS_CLASS_CASES = [
  ingressClass('IngressClass: the base'),
  ingressClass('no controller', (o) => delete o.spec.controller),
  ingressClass('controller nginx', (o) => (o.spec.controller = 'nginx')),
  ingressClass('controller Ex_/a', (o) => (o.spec.controller = 'Ex_/a')),
  ingressClass('controller a.com/', (o) => (o.spec.controller = 'a.com/')),
  ingressClass('controller a.com/b c', (o) => (o.spec.controller = 'a.com/b c')),
  ingressClass('controller of 251 characters', (o) => (o.spec.controller = `a.com/${'b'.repeat(245)}`)),
  ingressClass('parameters without kind', (o) => (o.spec.parameters = { name: 'x' })),
  ingressClass('Namespace parameters without namespace', (o) => {
    o.spec.parameters = { kind: 'K', name: 'x', scope: 'Namespace' };
  }),
  ingressClass('Namespace parameters in Bad_', (o) => {
    o.spec.parameters = { kind: 'K', name: 'x', scope: 'Namespace', namespace: 'Bad_' };
  }),
  ingressClass('Cluster parameters with a namespace', (o) => {
    o.spec.parameters = { kind: 'K', name: 'x', scope: 'Cluster', namespace: 'n' };
  }),
  ingressClass('parameters without scope, with a namespace', (o) => {
    o.spec.parameters = { kind: 'K', name: 'x', namespace: 'n' };
  }),
  ingressClass('parameters scope Bogus', (o) => (o.spec.parameters = { kind: 'K', name: 'x', scope: 'Bogus' })),
];

describeBuiltinDifferential('networking.k8s.io/v1: synth and the apiserver', [
  ...NETWORK_POLICY_CASES,
  ...INGRESS_CASES,
  ...INGRESS_CLASS_CASES,
]);
