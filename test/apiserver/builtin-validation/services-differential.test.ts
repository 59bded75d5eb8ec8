import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/*
 * v1 Service: synth's verdict against the real apiservers'. Not here, as they depend on the cluster: a clusterIP
 * outside the service CIDR, IPv6 or dual-stack on an IPv4-only cluster, nodePorts outside the node-port range (a
 * dry run does not even check those).
 */

const m = mutationOf(() => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's' },
  spec: { selector: { app: 'a' }, ports: [{ port: 80 }] },
}));
const lb = (o: any) => (o.spec.type = 'LoadBalancer');
const nodePort = (o: any) => (o.spec.type = 'NodePort');
const externalName = (o: any, name = 'x.example.com') => {
  o.spec.type = 'ExternalName';
  o.spec.externalName = name;
};
const clientIp = (o: any, timeoutSeconds: number) => {
  o.spec.sessionAffinity = 'ClientIP';
  o.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds } };
};

const CASES = [
  m('the base'),
  // ports
  m('port 70000 (targetPort defaults to it)', (o) => (o.spec.ports[0].port = 70000)),
  m('port 0', (o) => (o.spec.ports[0].port = 0)),
  m('port 65535', (o) => (o.spec.ports[0].port = 65535)),
  m('no ports', (o) => delete o.spec.ports),
  m('no ports, headless', (o) => {
    delete o.spec.ports;
    o.spec.clusterIP = 'None';
  }),
  m('no ports, ExternalName', (o) => {
    delete o.spec.ports;
    externalName(o);
  }),
  m('two ports without names', (o) => o.spec.ports.push({ port: 81 })),
  m('two ports, one named', (o) => (o.spec.ports = [{ name: 'a', port: 80 }, { port: 81 }])),
  m(
    'two ports, an empty name',
    (o) =>
      (o.spec.ports = [
        { name: '', port: 80 },
        { name: 'b', port: 81 },
      ]),
  ),
  m('port name Bad', (o) => (o.spec.ports[0].name = 'Bad')),
  m('port name 1abc (an RFC 1123 label)', (o) => (o.spec.ports[0].name = '1abc')),
  m('port name a.b', (o) => (o.spec.ports[0].name = 'a.b')),
  m('port name of 64 characters', (o) => (o.spec.ports[0].name = 'a'.repeat(64))),
  m(
    'duplicate port names',
    (o) =>
      (o.spec.ports = [
        { name: 'a', port: 80 },
        { name: 'a', port: 81 },
      ]),
  ),
  m(
    'duplicate port and protocol',
    (o) =>
      (o.spec.ports = [
        { name: 'a', port: 80 },
        { name: 'b', port: 80 },
      ]),
  ),
  m('duplicate port, three times', (o) => {
    o.spec.ports = [
      { name: 'a', port: 80 },
      { name: 'b', port: 80 },
      { name: 'c', port: 80, protocol: 'TCP' },
    ];
  }),
  m('same port, other protocol', (o) => {
    o.spec.ports = [
      { name: 'a', port: 80 },
      { name: 'b', port: 80, protocol: 'UDP' },
    ];
  }),
  m('protocol ICMP', (o) => (o.spec.ports[0].protocol = 'ICMP')),
  m('protocol SCTP', (o) => (o.spec.ports[0].protocol = 'SCTP')),
  m('targetPort 70000', (o) => (o.spec.ports[0].targetPort = 70000)),
  m('targetPort 0 (defaulted)', (o) => (o.spec.ports[0].targetPort = 0)),
  m('targetPort "" (defaulted)', (o) => (o.spec.ports[0].targetPort = '')),
  m('targetPort name http', (o) => (o.spec.ports[0].targetPort = 'http')),
  m('targetPort name Bad_', (o) => (o.spec.ports[0].targetPort = 'Bad_')),
  m('targetPort name of 16 characters', (o) => (o.spec.ports[0].targetPort = 'abcdefghijklmnop')),
  m('targetPort name of digits', (o) => (o.spec.ports[0].targetPort = '8080')),
  m('targetPort name a--b', (o) => (o.spec.ports[0].targetPort = 'a--b')),
  m('targetPort name -ab', (o) => (o.spec.ports[0].targetPort = '-ab')),
  m('targetPort 65536 on a headless Service', (o) => {
    o.spec.clusterIP = 'None';
    o.spec.ports[0].targetPort = 65536;
  }),
  m('appProtocol a b', (o) => (o.spec.ports[0].appProtocol = 'a b')),
  m('appProtocol kubernetes.io/h2c', (o) => (o.spec.ports[0].appProtocol = 'kubernetes.io/h2c')),
  // type, ExternalName
  m('type Bogus', (o) => (o.spec.type = 'Bogus')),
  m('ExternalName without externalName', (o) => (o.spec.type = 'ExternalName')),
  m('ExternalName Bad_Name', (o) => externalName(o, 'Bad_Name')),
  m('ExternalName with a trailing dot', (o) => externalName(o, 'x.example.com.')),
  m('ExternalName of 254 characters', (o) => externalName(o, `${`${'a'.repeat(60)}.`.repeat(4)}abcdefghijklmn`)),
  m('ExternalName with a clusterIP', (o) => {
    externalName(o);
    o.spec.clusterIP = '10.0.0.5';
  }),
  m('ExternalName headless', (o) => {
    externalName(o);
    o.spec.clusterIP = 'None';
  }),
  m('ExternalName with ipFamilies', (o) => {
    externalName(o);
    o.spec.ipFamilies = ['IPv4'];
  }),
  m('ExternalName with ipFamilyPolicy', (o) => {
    externalName(o);
    o.spec.ipFamilyPolicy = 'SingleStack';
  }),
  m('ExternalName with port 70000', (o) => {
    externalName(o);
    o.spec.ports[0].port = 70000;
  }),
  m('ExternalName with a nodePort', (o) => {
    externalName(o);
    o.spec.ports[0].nodePort = 30001;
  }),
  // nodePorts
  m('nodePort on a ClusterIP Service', (o) => (o.spec.ports[0].nodePort = 30080)),
  m('nodePort 30080 on a NodePort Service', (o) => {
    nodePort(o);
    o.spec.ports[0].nodePort = 30080;
  }),
  m('duplicate nodePorts', (o) => {
    nodePort(o);
    o.spec.ports = [
      { name: 'a', port: 80, nodePort: 30081 },
      { name: 'b', port: 81, nodePort: 30081 },
    ];
  }),
  m('same nodePort, other protocol', (o) => {
    nodePort(o);
    o.spec.ports = [
      { name: 'a', port: 80, nodePort: 30082 },
      { name: 'b', port: 80, protocol: 'UDP', nodePort: 30082 },
    ];
  }),
  m('port 10250 on a LoadBalancer', (o) => {
    lb(o);
    o.spec.ports[0].port = 10250;
  }),
  m('port 10250 on a NodePort Service', (o) => {
    nodePort(o);
    o.spec.ports[0].port = 10250;
  }),
  m('LoadBalancer with mixed protocols', (o) => {
    lb(o);
    o.spec.ports = [
      { name: 'a', port: 80 },
      { name: 'b', port: 81, protocol: 'UDP' },
    ];
  }),
  // cluster IPs
  m('clusterIP abc', (o) => (o.spec.clusterIP = 'abc')),
  m('clusterIP 10.0.0.5', (o) => (o.spec.clusterIP = '10.0.0.5')),
  m('clusterIP 010.0.0.5 (leading zero)', (o) => (o.spec.clusterIP = '010.0.0.5')),
  m('clusterIP ""', (o) => (o.spec.clusterIP = '')),
  m('headless NodePort', (o) => {
    nodePort(o);
    o.spec.clusterIP = 'None';
  }),
  m('headless LoadBalancer', (o) => {
    lb(o);
    o.spec.clusterIP = 'None';
  }),
  m('clusterIPs not starting with clusterIP', (o) => {
    o.spec.clusterIP = 'None';
    o.spec.clusterIPs = ['10.0.0.9'];
  }),
  m('clusterIPs without clusterIP', (o) => (o.spec.clusterIPs = ['10.0.0.7'])),
  m('clusterIPs abc without clusterIP', (o) => (o.spec.clusterIPs = ['abc'])),
  m('two IPv4 clusterIPs', (o) => {
    o.spec.clusterIP = '10.0.0.5';
    o.spec.clusterIPs = ['10.0.0.5', '10.0.0.6'];
    o.spec.ipFamilyPolicy = 'PreferDualStack';
  }),
  m('None and another clusterIP', (o) => {
    o.spec.clusterIP = 'None';
    o.spec.clusterIPs = ['None', '10.0.0.6'];
  }),
  m('ipFamilies IPv5', (o) => (o.spec.ipFamilies = ['IPv5'])),
  m('ipFamilies []', (o) => (o.spec.ipFamilies = [])),
  m('ipFamilyPolicy Bogus', (o) => (o.spec.ipFamilyPolicy = 'Bogus')),
  m('ipFamilyPolicy PreferDualStack', (o) => (o.spec.ipFamilyPolicy = 'PreferDualStack')),
  m('two ipFamilies, SingleStack', (o) => {
    o.spec.ipFamilies = ['IPv4', 'IPv6'];
    o.spec.ipFamilyPolicy = 'SingleStack';
  }),
  m('two ipFamilies, SingleStack, headless', (o) => {
    o.spec.clusterIP = 'None';
    o.spec.ipFamilies = ['IPv4', 'IPv6'];
    o.spec.ipFamilyPolicy = 'SingleStack';
  }),
  m('duplicate ipFamilies', (o) => {
    o.spec.ipFamilies = ['IPv4', 'IPv4'];
    o.spec.ipFamilyPolicy = 'PreferDualStack';
  }),
  // externalIPs
  m('externalIPs abc', (o) => (o.spec.externalIPs = ['abc'])),
  // found by bench/builtin-differential.ts: external IPs make only a ClusterIP Service externally accessible
  m('externalIPs with externalTrafficPolicy, type Bogus', (o) =>
    Object.assign(o.spec, { type: 'Bogus', externalIPs: ['192.0.2.10'], externalTrafficPolicy: 'Local' }),
  ),
  m('externalIPs with externalTrafficPolicy, ClusterIP', (o) =>
    Object.assign(o.spec, { externalIPs: ['192.0.2.10'], externalTrafficPolicy: 'Local' }),
  ),
  m('externalIPs with externalTrafficPolicy, ExternalName', (o) =>
    Object.assign(o.spec, {
      type: 'ExternalName',
      externalName: 'db.example.com',
      externalIPs: ['192.0.2.10'],
      externalTrafficPolicy: 'Local',
    }),
  ),
  m('externalIPs 127.0.0.1', (o) => (o.spec.externalIPs = ['127.0.0.1'])),
  m('externalIPs ::1', (o) => (o.spec.externalIPs = ['::1'])),
  m('externalIPs 0.0.0.0', (o) => (o.spec.externalIPs = ['0.0.0.0'])),
  m('externalIPs 169.254.1.1', (o) => (o.spec.externalIPs = ['169.254.1.1'])),
  m('externalIPs 224.0.0.1', (o) => (o.spec.externalIPs = ['224.0.0.1'])),
  m('externalIPs 225.0.0.1', (o) => (o.spec.externalIPs = ['225.0.0.1'])),
  m('externalIPs 010.0.0.1 (leading zero)', (o) => (o.spec.externalIPs = ['010.0.0.1'])),
  m('externalIPs ::ffff:1.2.3.4 (IPv4-mapped)', (o) => (o.spec.externalIPs = ['::ffff:1.2.3.4'])),
  m('externalIPs 203.0.113.7', (o) => (o.spec.externalIPs = ['203.0.113.7'])),
  // session affinity
  m('sessionAffinity Cookie', (o) => (o.spec.sessionAffinity = 'Cookie')),
  m('ClientIP without config (defaulted)', (o) => (o.spec.sessionAffinity = 'ClientIP')),
  m('ClientIP with an empty clientIP', (o) => {
    o.spec.sessionAffinity = 'ClientIP';
    o.spec.sessionAffinityConfig = { clientIP: {} };
  }),
  m('ClientIP timeout 0', (o) => clientIp(o, 0)),
  m('ClientIP timeout -5', (o) => clientIp(o, -5)),
  m('ClientIP timeout 86400', (o) => clientIp(o, 86400)),
  m('ClientIP timeout 86401', (o) => clientIp(o, 86401)),
  m('None with a config', (o) => (o.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10 } })),
  // selector
  m('selector key a b', (o) => (o.spec.selector = { 'a b': 'x' })),
  m('selector value x y', (o) => (o.spec.selector = { a: 'x y' })),
  m('selector value ""', (o) => (o.spec.selector = { a: '' })),
  m('selector key example.com/a', (o) => (o.spec.selector = { 'example.com/a': 'x' })),
  // traffic policies
  m('externalTrafficPolicy Local on ClusterIP', (o) => (o.spec.externalTrafficPolicy = 'Local')),
  m('externalTrafficPolicy Cluster on ClusterIP', (o) => (o.spec.externalTrafficPolicy = 'Cluster')),
  m('externalTrafficPolicy Local on ClusterIP with externalIPs', (o) => {
    o.spec.externalIPs = ['203.0.113.7'];
    o.spec.externalTrafficPolicy = 'Local';
  }),
  m('externalTrafficPolicy Local on ExternalName', (o) => {
    externalName(o);
    o.spec.externalTrafficPolicy = 'Local';
  }),
  m('externalTrafficPolicy Bogus on NodePort', (o) => {
    nodePort(o);
    o.spec.externalTrafficPolicy = 'Bogus';
  }),
  m('externalTrafficPolicy Local on LoadBalancer', (o) => {
    lb(o);
    o.spec.externalTrafficPolicy = 'Local';
  }),
  m('healthCheckNodePort on ClusterIP', (o) => (o.spec.healthCheckNodePort = 30500)),
  m('healthCheckNodePort on a Cluster LoadBalancer', (o) => {
    lb(o);
    o.spec.healthCheckNodePort = 30500;
  }),
  m('healthCheckNodePort on a Local NodePort', (o) => {
    nodePort(o);
    o.spec.externalTrafficPolicy = 'Local';
    o.spec.healthCheckNodePort = 31000;
  }),
  m('healthCheckNodePort 70000 on a Local LoadBalancer', (o) => {
    lb(o);
    o.spec.externalTrafficPolicy = 'Local';
    o.spec.healthCheckNodePort = 70000;
  }),
  m('healthCheckNodePort -1 on a Local LoadBalancer', (o) => {
    lb(o);
    o.spec.externalTrafficPolicy = 'Local';
    o.spec.healthCheckNodePort = -1;
  }),
  m('healthCheckNodePort 31001 on a Local LoadBalancer', (o) => {
    lb(o);
    o.spec.externalTrafficPolicy = 'Local';
    o.spec.healthCheckNodePort = 31001;
  }),
  m('internalTrafficPolicy Bogus', (o) => (o.spec.internalTrafficPolicy = 'Bogus')),
  m('internalTrafficPolicy Local', (o) => (o.spec.internalTrafficPolicy = 'Local')),
  m('internalTrafficPolicy Bogus on ExternalName', (o) => {
    externalName(o);
    o.spec.internalTrafficPolicy = 'Bogus';
  }),
  m('trafficDistribution PreferClose', (o) => (o.spec.trafficDistribution = 'PreferClose')),
  m('trafficDistribution PreferSameZone', (o) => (o.spec.trafficDistribution = 'PreferSameZone')),
  m('trafficDistribution PreferSameNode', (o) => (o.spec.trafficDistribution = 'PreferSameNode')),
  m('trafficDistribution Bogus', (o) => (o.spec.trafficDistribution = 'Bogus')),
  m('publishNotReadyAddresses', (o) => (o.spec.publishNotReadyAddresses = true)),
  // load balancers
  m('loadBalancerSourceRanges 10.0.0.0/33', (o) => {
    lb(o);
    o.spec.loadBalancerSourceRanges = ['10.0.0.0/33'];
  }),
  m('loadBalancerSourceRanges two bad of three', (o) => {
    lb(o);
    o.spec.loadBalancerSourceRanges = ['x', '10.0.0.0/8', 'y'];
  }),
  m('loadBalancerSourceRanges with spaces', (o) => {
    lb(o);
    o.spec.loadBalancerSourceRanges = [' 10.0.0.0/8 '];
  }),
  m('loadBalancerSourceRanges 10.0.0.1/8 (bits beyond the prefix)', (o) => {
    lb(o);
    o.spec.loadBalancerSourceRanges = ['10.0.0.1/8'];
  }),
  m('loadBalancerSourceRanges on ClusterIP', (o) => (o.spec.loadBalancerSourceRanges = ['10.0.0.0/8'])),
  m('bad loadBalancerSourceRanges on ClusterIP', (o) => (o.spec.loadBalancerSourceRanges = ['x'])),
  m('allocateLoadBalancerNodePorts on ClusterIP', (o) => (o.spec.allocateLoadBalancerNodePorts = false)),
  m('allocateLoadBalancerNodePorts false on LoadBalancer', (o) => {
    lb(o);
    o.spec.allocateLoadBalancerNodePorts = false;
  }),
  m('loadBalancerClass on ClusterIP', (o) => (o.spec.loadBalancerClass = 'a.com/b')),
  m('loadBalancerClass on NodePort', (o) => {
    nodePort(o);
    o.spec.loadBalancerClass = 'a.com/b';
  }),
  m('loadBalancerClass a b', (o) => {
    lb(o);
    o.spec.loadBalancerClass = 'a b';
  }),
  m('loadBalancerClass bad (a qualified name)', (o) => {
    lb(o);
    o.spec.loadBalancerClass = 'bad';
  }),
  // null list items are zero values, empty strings are not all defaulted
  m('ports [null]', (o) => (o.spec.ports = [null])),
  m('port null', (o) => (o.spec.ports[0].port = null)),
  m('targetPort null', (o) => (o.spec.ports[0].targetPort = null)),
  m('protocol ""', (o) => (o.spec.ports[0].protocol = '')),
  m('type ""', (o) => (o.spec.type = '')),
  m('sessionAffinity ""', (o) => (o.spec.sessionAffinity = '')),
  m('clusterIPs [null]', (o) => (o.spec.clusterIPs = [null])),
  m('externalIPs [""]', (o) => (o.spec.externalIPs = [''])),
  m('ipFamilies [""]', (o) => (o.spec.ipFamilies = [''])),
  m('ipFamilyPolicy ""', (o) => (o.spec.ipFamilyPolicy = '')),
  m('externalTrafficPolicy "" on ClusterIP', (o) => (o.spec.externalTrafficPolicy = '')),
  m('internalTrafficPolicy ""', (o) => (o.spec.internalTrafficPolicy = '')),
  m('loadBalancerClass "" on LoadBalancer', (o) => {
    lb(o);
    o.spec.loadBalancerClass = '';
  }),
  m('loadBalancerSourceRanges [""]', (o) => {
    lb(o);
    o.spec.loadBalancerSourceRanges = [''];
  }),
  m('appProtocol ""', (o) => (o.spec.ports[0].appProtocol = '')),
  m('ExternalName "."', (o) => externalName(o, '.')),
  // found by the additions differential: the IP fields are checked first (the storage's BeginCreate), alone
  m('clusterIPs [None] without clusterIP, NodePort', (o) => {
    nodePort(o);
    o.spec.clusterIPs = ['None'];
  }),
  m('clusterIP None, clusterIPs another, NodePort', (o) => {
    nodePort(o);
    o.spec.clusterIP = 'None';
    o.spec.clusterIPs = ['10.0.0.5'];
  }),
  m('clusterIP None, LoadBalancer, port 0', (o) => {
    lb(o);
    o.spec.clusterIP = 'None';
    o.spec.ports[0].port = 0;
  }),
  m('clusterIPs x, port 0, a bad name and label', (o) => {
    nodePort(o);
    o.spec.clusterIPs = ['x'];
    o.spec.ports[0].port = 0;
    o.metadata.name = 'Bad_Name';
    o.metadata.labels = { 'a b': 'c' };
  }),
  m('ipFamilies [IPv5], port 0', (o) => {
    o.spec.ipFamilies = ['IPv5'];
    o.spec.ports[0].port = 0;
  }),
  m('ipFamilyPolicy Bogus, a bad selector', (o) => {
    o.spec.ipFamilyPolicy = 'Bogus';
    o.spec.selector = { 'a b': 'c' };
  }),
  m('clusterIP x, port 0', (o) => {
    o.spec.clusterIP = 'x';
    o.spec.ports[0].port = 0;
  }),
  m('ExternalName with clusterIPs, port 0', (o) => {
    externalName(o);
    o.spec.clusterIPs = ['x'];
    o.spec.ports[0].port = 0;
  }),
];

describeBuiltinDifferential('v1 Service: synth and the apiserver', CASES);
