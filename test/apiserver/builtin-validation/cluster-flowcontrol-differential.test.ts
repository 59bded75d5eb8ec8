import { describeBuiltinDifferential, mutationOf } from './differential-harness';
import { OracleVersion } from '../../envtest';

/** FlowSchema and PriorityLevelConfiguration (v1beta3 on 1.28, v1 on 1.32 and 1.36): synth against the apiservers. */

const FIXED = [
  'FlowSchema: named catch-all',
  'FlowSchema: named exempt',
  'PLC: named exempt, Limited',
  'PLC: named catch-all',
];

function flowSchemas(apiVersion: string) {
  const fs = mutationOf(() => ({
    apiVersion,
    kind: 'FlowSchema',
    metadata: { name: 'operator' },
    spec: {
      matchingPrecedence: 500,
      priorityLevelConfiguration: { name: 'workload-low' },
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ops', name: 'operator' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
        },
      ],
    },
  }));
  const rule = (o: any, r: object) => (o.spec.rules = [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], ...r }]);
  const resourceRule = (o: any, r: object) => rule(o, { resourceRules: [r] });
  const nonResourceRule = (o: any, r: object) => rule(o, { nonResourceRules: [r] });
  const subject = (o: any, s: object) =>
    (o.spec.rules = [{ subjects: [s], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }]);
  return [
    fs('FlowSchema: the base'),
    fs('FlowSchema: matchingPrecedence 0 (defaulted)', (o) => (o.spec.matchingPrecedence = 0)),
    fs('FlowSchema: matchingPrecedence 1', (o) => (o.spec.matchingPrecedence = 1)),
    fs('FlowSchema: matchingPrecedence 10000', (o) => (o.spec.matchingPrecedence = 10000)),
    fs('FlowSchema: matchingPrecedence 10001', (o) => (o.spec.matchingPrecedence = 10001)),
    fs('FlowSchema: matchingPrecedence -1', (o) => (o.spec.matchingPrecedence = -1)),
    fs('FlowSchema: distinguisherMethod Bogus', (o) => (o.spec.distinguisherMethod = { type: 'Bogus' })),
    fs('FlowSchema: distinguisherMethod {}', (o) => (o.spec.distinguisherMethod = {})),
    fs('FlowSchema: no priority level', (o) => (o.spec.priorityLevelConfiguration = {})),
    fs('FlowSchema: priority level Bad_Name', (o) => (o.spec.priorityLevelConfiguration = { name: 'Bad_Name' })),
    // found by bench/builtin-differential.ts: the names are DNS subdomains
    fs('FlowSchema: name Bad_Name', (o) => (o.metadata.name = 'Bad_Name')),
    fs('FlowSchema: no rules', (o) => delete o.spec.rules),
    fs('FlowSchema: a rule without subjects', (o) => (o.spec.rules[0].subjects = [])),
    fs('FlowSchema: a rule without resource rules', (o) => rule(o, {})),
    fs('FlowSchema: verbs get and bogus', (o) =>
      resourceRule(o, { verbs: ['get', 'bogus'], apiGroups: [''], resources: ['pods'], clusterScope: true }),
    ),
    fs('FlowSchema: * with others everywhere', (o) =>
      resourceRule(o, { verbs: ['*', 'get'], apiGroups: ['', '*'], resources: ['pods', '*'], namespaces: ['*', 'a'] }),
    ),
    fs('FlowSchema: an empty resource rule', (o) => resourceRule(o, {})),
    fs('FlowSchema: namespace Bad_NS', (o) =>
      resourceRule(o, { verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['Bad_NS'] }),
    ),
    fs('FlowSchema: an empty non-resource rule', (o) => nonResourceRule(o, {})),
    fs('FlowSchema: non-resource URLs', (o) =>
      nonResourceRule(o, {
        verbs: ['get', 'post'],
        nonResourceURLs: ['healthz', '/a b', '//x', '/a*', '/a/*', '/', '', '/*/x'],
      }),
    ),
    fs('FlowSchema: non-resource * with others', (o) =>
      nonResourceRule(o, { verbs: ['get'], nonResourceURLs: ['*', '/x'] }),
    ),
    fs('FlowSchema: subject kind Bogus', (o) => subject(o, { kind: 'Bogus' })),
    fs('FlowSchema: ServiceAccount subject without serviceAccount', (o) => subject(o, { kind: 'ServiceAccount' })),
    fs('FlowSchema: ServiceAccount subject empty', (o) => subject(o, { kind: 'ServiceAccount', serviceAccount: {} })),
    fs('FlowSchema: ServiceAccount subject bad names', (o) =>
      subject(o, { kind: 'ServiceAccount', serviceAccount: { namespace: 'Bad NS', name: 'Bad_SA' } }),
    ),
    fs('FlowSchema: ServiceAccount subject *', (o) =>
      subject(o, { kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: '*' } }),
    ),
    fs('FlowSchema: ServiceAccount subject with user and group', (o) =>
      subject(o, {
        kind: 'ServiceAccount',
        serviceAccount: { namespace: 'ns', name: 'a' },
        user: { name: 'u' },
        group: { name: 'g' },
      }),
    ),
    fs('FlowSchema: User subject without user', (o) => subject(o, { kind: 'User' })),
    fs('FlowSchema: User subject empty, with serviceAccount', (o) =>
      subject(o, { kind: 'User', user: {}, serviceAccount: { namespace: 'n', name: 'a' } }),
    ),
    fs('FlowSchema: Group subject with user', (o) => subject(o, { kind: 'Group', user: { name: 'x' } })),
    fs('FlowSchema: Group subject empty', (o) => subject(o, { kind: 'Group', group: {} })),
    fs('FlowSchema: named catch-all', (o) => (o.metadata.name = 'catch-all')),
    fs('FlowSchema: named exempt', (o) => (o.metadata.name = 'exempt')),
  ];
}

function priorityLevels(apiVersion: string) {
  const p = mutationOf(() => ({
    apiVersion,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'operator' },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 10,
        lendablePercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } },
      },
    },
  }));
  const limited = (o: any, l: object) =>
    (o.spec.limited = { nominalConcurrencyShares: 10, limitResponse: { type: 'Reject' }, ...l });
  const queuing = (o: any, q: object) => (o.spec.limited.limitResponse.queuing = q);
  return [
    p('PLC: the base'),
    p('PLC: name Bad_Name', (o) => (o.metadata.name = 'Bad_Name')),
    p('PLC: name Bad_Name', (o) => (o.metadata.name = 'Bad_Name')),
    p('PLC: no type', (o) => delete o.spec.type),
    p('PLC: type Bogus', (o) => (o.spec.type = 'Bogus')),
    p('PLC: type Exempt with limited', (o) => (o.spec.type = 'Exempt')),
    p(
      'PLC: type Exempt',
      (o) => (o.spec = { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 50 } }),
    ),
    p(
      'PLC: type Exempt, bad shares',
      (o) => (o.spec = { type: 'Exempt', exempt: { nominalConcurrencyShares: -1, lendablePercent: 101 } }),
    ),
    p('PLC: Limited without limited', (o) => delete o.spec.limited),
    p('PLC: Limited with exempt', (o) => (o.spec.exempt = {})),
    p('PLC: nominalConcurrencyShares 0', (o) => limited(o, { nominalConcurrencyShares: 0 })),
    p('PLC: nominalConcurrencyShares -1', (o) => limited(o, { nominalConcurrencyShares: -1 })),
    p('PLC: no nominalConcurrencyShares', (o) => limited(o, { nominalConcurrencyShares: undefined })),
    p('PLC: lendablePercent 101', (o) => limited(o, { lendablePercent: 101 })),
    p('PLC: lendablePercent -1', (o) => limited(o, { lendablePercent: -1 })),
    p('PLC: borrowingLimitPercent -1', (o) => limited(o, { borrowingLimitPercent: -1 })),
    p('PLC: borrowingLimitPercent 500', (o) => limited(o, { borrowingLimitPercent: 500 })),
    p('PLC: no limitResponse', (o) => limited(o, { limitResponse: undefined })),
    p('PLC: limitResponse Bogus', (o) => limited(o, { limitResponse: { type: 'Bogus' } })),
    p('PLC: Reject with queuing', (o) => limited(o, { limitResponse: { type: 'Reject', queuing: {} } })),
    p('PLC: Queue without queuing', (o) => limited(o, { limitResponse: { type: 'Queue' } })),
    p('PLC: empty queuing (defaulted)', (o) => queuing(o, {})),
    p('PLC: negative queuing', (o) => queuing(o, { queues: -1, handSize: -1, queueLengthLimit: -1 })),
    p('PLC: queues 10000001', (o) => queuing(o, { queues: 10000001, handSize: 1, queueLengthLimit: 1 })),
    p('PLC: handSize over queues', (o) => queuing(o, { queues: 4, handSize: 5 })),
    p('PLC: too much entropy', (o) => queuing(o, { queues: 100000, handSize: 6 })),
    p('PLC: enough entropy', (o) => queuing(o, { queues: 1024, handSize: 6 })),
    p('PLC: one queue, default handSize', (o) => queuing(o, { queues: 1 })),
    p('PLC: named exempt, Limited', (o) => (o.metadata.name = 'exempt')),
    p('PLC: named catch-all', (o) => (o.metadata.name = 'catch-all')),
  ];
}

const casesOf = (version: OracleVersion) => {
  const apiVersion = `flowcontrol.apiserver.k8s.io/${version === '1.28' ? 'v1beta3' : 'v1'}`;
  return [...flowSchemas(apiVersion), ...priorityLevels(apiVersion)];
};

describeBuiltinDifferential('flowcontrol: synth and the apiserver', casesOf, { verdictOnly: FIXED });
