import type { Mutation } from './pod-spec-cases';

/**
 * Pod-level cases found by the additions differential (`bench/builtin-differential.ts --mutate additions`): fields a
 * valid seed lacks, each added with values of its type. Fields of newer versions are refused by 1.28's (or 1.32's)
 * decoding or dropped by their gates: those cases check that nothing is reported there but the decoding's.
 */

const c0 = (s: any) => s.containers[0];
const spread = (extra: Record<string, unknown>) => [
  { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', ...extra },
];
const AA = 'container.apparmor.security.beta.kubernetes.io/';
const SC = 'seccomp.security.alpha.kubernetes.io/pod';
const SCC = 'container.seccomp.security.alpha.kubernetes.io/';
const annotate = (t: any, annotations: Record<string, string>) => (t.metadata.annotations = annotations);
const windows = (options: Record<string, unknown>) => (s: any) => (s.securityContext = { windowsOptions: options });

/** `[name, mutation]`, as POD_SPEC_CASES. */
export const POD_LEVEL_CASES: ReadonlyArray<readonly [string, Mutation]> = [
  // dnsConfig (validatePodDNSConfig)
  [
    'dnsConfig searches not subdomains',
    (s) => (s.dnsConfig = { searches: ['/', 'Ignore', 'a_b', 'a.', '.', '_x.y', ''] }),
  ],
  ['dnsConfig 33 searches', (s) => (s.dnsConfig = { searches: Array.from({ length: 33 }, (_, i) => `s${i}`) })],
  [
    'dnsConfig searches over 2048 characters',
    (s) =>
      (s.dnsConfig = {
        searches: Array.from({ length: 12 }, (_, i) => `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.x${i}`),
      }),
  ],
  [
    'dnsPolicy None without nameservers',
    (s) => Object.assign(s, { dnsPolicy: 'None', dnsConfig: { searches: ['a'] } }),
  ],
  [
    'dnsPolicy None with a bad search',
    (s) => Object.assign(s, { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['Bad'] } }),
  ],
  // overhead (validateOverhead: a container's limits)
  [
    'overhead resource names',
    (s) => (s.overhead = { a: '1', 'a/b/c': '1', '/a': '1', 'example.com/x': '1', pods: '1', 'hugepages-2Mi': '2Mi' }),
  ],
  ['overhead negative', (s) => (s.overhead = { cpu: '100m', memory: '-1' })],
  // schedulingGates
  ['schedulingGates bad and repeated', (s) => (s.schedulingGates = [{ name: '@' }, { name: 'a' }, { name: 'a' }, {}])],
  ['schedulingGates with nodeName', (s) => Object.assign(s, { schedulingGates: [{ name: 'a' }], nodeName: 'n' })],
  // the deprecated serviceAccount
  ['serviceAccount None', (s) => (s.serviceAccount = 'None')],
  [
    'serviceAccount bad beside a serviceAccountName',
    (s) => Object.assign(s, { serviceAccount: 'None', serviceAccountName: 'default' }),
  ],
  // topologySpreadConstraints
  ['topologySpread topologyKey $(VAR)', (s) => (s.topologySpreadConstraints = spread({ topologyKey: '$(VAR)' }))],
  [
    'topologySpread topologyKey 64 characters',
    (s) => (s.topologySpreadConstraints = spread({ topologyKey: 'a'.repeat(64) })),
  ],
  [
    'topologySpread maxSkew missing',
    (s) => (s.topologySpreadConstraints = [{ topologyKey: 'z', whenUnsatisfiable: 'DoNotSchedule' }]),
  ],
  [
    'topologySpread minDomains 0 with ScheduleAnyway',
    (s) => (s.topologySpreadConstraints = spread({ whenUnsatisfiable: 'ScheduleAnyway', minDomains: 0 })),
  ],
  [
    'topologySpread matchLabelKeys without selector',
    (s) => (s.topologySpreadConstraints = spread({ matchLabelKeys: ['a:b', '/x'] })),
  ],
  [
    'topologySpread matchLabelKeys bad key',
    (s) =>
      (s.topologySpreadConstraints = spread({
        labelSelector: { matchLabels: { x: 'y' } },
        matchLabelKeys: ['a:b', 'c'],
      })),
  ],
  [
    'topologySpread matchLabelKeys in matchLabels',
    (s) =>
      (s.topologySpreadConstraints = spread({ labelSelector: { matchLabels: { k: 'y' } }, matchLabelKeys: ['k'] })),
  ],
  [
    'topologySpread matchLabelKeys of a pod label in matchLabels',
    (s) =>
      (s.topologySpreadConstraints = spread({ labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['app'] })),
  ],
  [
    'topologySpread matchLabelKeys in matchExpressions',
    (s) =>
      (s.topologySpreadConstraints = spread({
        labelSelector: { matchExpressions: [{ key: 'k', operator: 'Exists' }] },
        matchLabelKeys: ['k'],
      })),
  ],
  [
    'topologySpread matchLabelKeys in matchLabels and matchExpressions',
    (s) =>
      (s.topologySpreadConstraints = spread({
        labelSelector: { matchLabels: { k: 'y' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] },
        matchLabelKeys: ['q', 'k', 'k'],
      })),
  ],
  // windowsOptions, HostProcess pods and the pod's os
  [
    'pod windowsOptions empty strings',
    windows({ gmsaCredentialSpecName: 'kubernetes.io/a', gmsaCredentialSpec: '', runAsUserName: '' }),
  ],
  ['pod runAsUserName two backslashes', windows({ runAsUserName: 'a\\b\\c' })],
  ['pod runAsUserName bad domain', windows({ runAsUserName: '.bad\\user' })],
  ['pod runAsUserName bad characters', windows({ runAsUserName: 'us@er' })],
  ['pod runAsUserName dots only', windows({ runAsUserName: 'dom\\..' })],
  ['pod runAsUserName long', windows({ runAsUserName: 'u'.repeat(105) })],
  ['pod runAsUserName control character', windows({ runAsUserName: 'a\tb' })],
  [
    'container windowsOptions',
    (s) => (c0(s).securityContext.windowsOptions = { gmsaCredentialSpecName: 'Ab', runAsUserName: 'a/b' }),
  ],
  ['pod hostProcess without hostNetwork', windows({ hostProcess: true })],
  [
    'pod hostProcess with hostNetwork',
    (s) => Object.assign(s, { hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } } }),
  ],
  [
    'pod hostProcess, container not',
    (s) => {
      s.securityContext = { windowsOptions: { hostProcess: true } };
      c0(s).securityContext.windowsOptions = { hostProcess: false };
    },
  ],
  [
    'one hostProcess container of two',
    (s) => {
      c0(s).securityContext.windowsOptions = { hostProcess: true };
      s.containers.push({ name: 'b', image: 'busybox' });
    },
  ],
  ['os name empty', (s) => (s.os = { name: '' })],
  [
    'linux pod with windowsOptions',
    (s) => {
      s.os = { name: 'linux' };
      s.securityContext = { windowsOptions: { runAsUserName: 'x' } };
    },
  ],
  [
    'windows pod with linux options',
    (s) => {
      s.os = { name: 'windows' };
      Object.assign(s, { hostPID: true, hostIPC: true, shareProcessNamespace: false });
      s.securityContext = {
        runAsUser: 1,
        seccompProfile: { type: 'RuntimeDefault' },
        fsGroup: 1,
        sysctls: [{ name: 'a', value: '1' }],
      };
      s.securityContext = {
        ...s.securityContext,
        seLinuxOptions: {},
        fsGroupChangePolicy: 'Always',
        runAsGroup: 1,
        supplementalGroups: [],
      };
      Object.assign(c0(s).securityContext, {
        seLinuxOptions: {},
        readOnlyRootFilesystem: false,
        privileged: false,
        runAsGroup: 1,
      });
      c0(s).securityContext.procMount = 'Default';
    },
  ],
  [
    'windows pod with newer linux options',
    (s) => {
      s.os = { name: 'windows' };
      s.hostUsers = true;
      s.securityContext = {
        supplementalGroupsPolicy: 'Merge',
        seLinuxChangePolicy: 'Recursive',
        appArmorProfile: { type: 'RuntimeDefault' },
      };
      c0(s).securityContext = { appArmorProfile: { type: 'RuntimeDefault' } };
    },
  ],
  // securityContext
  ['supplementalGroupsPolicy X', (s) => (s.securityContext = { supplementalGroupsPolicy: 'X' })],
  ['seLinuxChangePolicy X', (s) => (s.securityContext = { seLinuxChangePolicy: 'X' })],
  ['seLinuxChangePolicy MountOption', (s) => (s.securityContext = { seLinuxChangePolicy: 'MountOption' })],
  [
    'pod seccomp Localhost with ..',
    (s) => (s.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: '../x' } }),
  ],
  [
    'pod seccomp Localhost absolute',
    (s) => (s.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: '/x' } }),
  ],
  [
    'pod seccomp Localhost empty',
    (s) => (s.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: '' } }),
  ],
  [
    'pod appArmor Localhost padded',
    (s) => (s.securityContext = { appArmorProfile: { type: 'Localhost', localhostProfile: ' x' } }),
  ],
  [
    'net sysctls with hostNetwork',
    (s) =>
      Object.assign(s, {
        hostNetwork: true,
        securityContext: {
          sysctls: [
            { name: 'net.core.somaxconn', value: '1' },
            { name: 'net/ipv4/ip_forward', value: '1' },
          ],
        },
      }),
  ],
  [
    'ipc sysctls with hostIPC',
    (s) =>
      Object.assign(s, {
        hostIPC: true,
        securityContext: {
          sysctls: [
            { name: 'kernel.shm_rmid_forced', value: '1' },
            { name: 'kernel.sem', value: '1' },
          ],
        },
      }),
  ],
  ['procMount Unmasked', (s) => (c0(s).securityContext.procMount = 'Unmasked')],
  [
    'procMount Unmasked with hostUsers false',
    (s) => {
      c0(s).securityContext.procMount = 'Unmasked';
      s.hostUsers = false;
    },
  ],
  [
    'hostUsers false with host namespaces',
    (s) => Object.assign(s, { hostUsers: false, hostNetwork: true, hostPID: true, hostIPC: true }),
  ],
  // pod-level resources and resource claims
  [
    'pod resources names and claims',
    (s) =>
      (s.resources = {
        requests: { a: '1', a_b: '-1', 'example.com/x': '1', pods: '1', 'hugepages-2Mi': '2Mi' },
        claims: [{ name: 'x' }],
      }),
  ],
  [
    'pod resources under the containers',
    (s) => (s.resources = { requests: { cpu: '50m' }, limits: { memory: '64Mi' } }),
  ],
  [
    'pod resources under containers and an init container',
    (s) => {
      s.containers.push({ name: 'b', image: 'busybox', resources: { requests: { cpu: '250m', memory: '1Gi' } } });
      s.initContainers = [{ name: 'i', image: 'busybox', resources: { requests: { cpu: '2', memory: '100Mi' } } }];
      s.resources = { requests: { cpu: '300m', memory: '1Gi' }, limits: { memory: '1Gi' } };
    },
  ],
  // a Pod's pod-level requests default from its containers' (and theirs from their limits), a template's do not
  ['pod limits under the container requests', (s) => (s.resources = { limits: { memory: '32Mi', cpu: '50m' } })],
  [
    'pod limits under the container limits',
    (s) => {
      s.containers[0].resources = { limits: { cpu: '1', memory: '128Mi' } };
      s.resources = { limits: { cpu: '500m', memory: '1Gi' } };
    },
  ],
  ['pod requests only', (s) => (s.resources = { requests: { cpu: '50m' } })],
  [
    'pod resources valid',
    (s) => (s.resources = { requests: { cpu: '200m', memory: '100Mi' }, limits: { cpu: '2', memory: '256Mi' } }),
  ],
  [
    'resourceClaims',
    (s) =>
      (s.resourceClaims = [
        { name: 'A', resourceClaimName: 'x', resourceClaimTemplateName: 'y' },
        { name: 'b' },
        { name: 'b', resourceClaimTemplateName: 'Ignore' },
        {},
      ]),
  ],
  // found by the additions differential's seed 2
  ['runtimeClassName empty', (s) => (s.runtimeClassName = '')],
  ['nameserver with leading zeros', (s) => (s.dnsConfig = { nameservers: ['010.0.0.1', '1.2.3.04'] })],
  ['nameserver IPv4-mapped', (s) => (s.dnsConfig = { nameservers: ['::ffff:1.2.3.4'] })],
  ['hostAliases ip with leading zeros', (s) => (s.hostAliases = [{ ip: '010.0.0.1', hostnames: ['a'] }])],
  ['hostAliases ip with a zone', (s) => (s.hostAliases = [{ ip: 'fe80::1%eth0', hostnames: ['a'] }])],
  // label selectors' values, node field selectors, pod affinity's label keys
  [
    'topologySpread selector value bad',
    (s) =>
      (s.topologySpreadConstraints = spread({
        labelSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] },
      })),
  ],
  [
    'podAffinity selectors values bad',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'z', labelSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] } },
          ],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 1,
              podAffinityTerm: {
                topologyKey: 'z',
                namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] },
              },
            },
          ],
        },
      }),
  ],
  [
    'nodeAffinity values bad',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1', 'x y'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] } },
          ],
        },
      }),
  ],
  [
    'nodeAffinity matchFields',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [
                  { key: 'metadata.name', operator: 'In', values: ['A_b', 'c'] },
                  { key: 'x', operator: 'Exists' },
                ],
              },
            ],
          },
        },
      }),
  ],
  [
    'podAffinity label keys without selector',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'z', matchLabelKeys: ['a:b'], mismatchLabelKeys: ['c'] },
          ],
        },
      }),
  ],
  [
    'podAffinity label keys in both lists and the selector',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: 'z',
              labelSelector: { matchLabels: { k: 'v', app: 'a' } },
              matchLabelKeys: ['k', 'm', 'B:c', 'app'],
              mismatchLabelKeys: ['m'],
            },
          ],
        },
      }),
  ],
  // pod-specific annotations (ValidatePodSpecificAnnotations), the deprecated profiles' agreement with the fields
  ['apparmor annotation of an unknown container', (_s, t) => annotate(t, { [AA + 'x']: 'runtime/default' })],
  [
    'apparmor annotations of containers',
    (s, t) => {
      s.initContainers = [{ name: 'init', image: 'busybox' }];
      annotate(t, { [AA + 'app']: 'localhost/foo', [AA + 'init']: 'unconfined' });
    },
  ],
  ['apparmor annotation not a profile', (_s, t) => annotate(t, { [AA + 'app']: 'foo' })],
  ['apparmor annotation empty', (_s, t) => annotate(t, { [AA + 'app']: '' })],
  [
    'apparmor annotation and container field differ',
    (s, t) => {
      c0(s).securityContext.appArmorProfile = { type: 'RuntimeDefault' };
      annotate(t, { [AA + 'app']: 'unconfined' });
    },
  ],
  [
    'apparmor annotation and container field agree',
    (s, t) => {
      c0(s).securityContext.appArmorProfile = { type: 'Localhost', localhostProfile: 'a' };
      annotate(t, { [AA + 'app']: 'localhost/a' });
    },
  ],
  [
    // a Pod's container takes its annotation's profile first (accepted), a template's does not (refused)
    'apparmor annotation and pod profile differ',
    (s, t) => {
      s.securityContext = { appArmorProfile: { type: 'Localhost', localhostProfile: 'foo' } };
      annotate(t, { [AA + 'app']: 'localhost/bar' });
    },
  ],
  [
    'apparmor empty annotation against the pod profile',
    (s, t) => {
      s.securityContext = { appArmorProfile: { type: 'RuntimeDefault' } };
      annotate(t, { [AA + 'app']: '' });
    },
  ],
  ['seccomp pod annotation not a profile', (_s, t) => annotate(t, { [SC]: 'foo' })],
  [
    'seccomp annotations of each form',
    (_s, t) => annotate(t, { [SC]: 'docker/default', [SCC + 'app']: 'localhost/p.json', [SCC + 'x']: 'unconfined' }),
  ],
  [
    'seccomp annotations absolute and with ..',
    (_s, t) => annotate(t, { [SC]: 'localhost//abs', [SCC + 'x']: 'localhost/../x' }),
  ],
  [
    'seccomp pod annotation and field differ',
    (s, t) => {
      s.securityContext = { seccompProfile: { type: 'RuntimeDefault' } };
      annotate(t, { [SC]: 'unconfined' });
    },
  ],
  [
    'seccomp annotations and fields agree',
    (s, t) => {
      s.securityContext = { seccompProfile: { type: 'RuntimeDefault' } };
      c0(s).securityContext.seccompProfile = { type: 'Localhost', localhostProfile: 'a' };
      annotate(t, { [SC]: 'docker/default', [SCC + 'app']: 'localhost/a' });
    },
  ],
  [
    'seccomp container annotation and field profiles differ',
    (s, t) => {
      c0(s).securityContext.seccompProfile = { type: 'Localhost', localhostProfile: 'a' };
      annotate(t, { [SCC + 'app']: 'localhost/b' });
    },
  ],
  [
    // a container's annotation is compared with the container's field alone
    'seccomp container annotation against the pod field',
    (s, t) => {
      s.securityContext = { seccompProfile: { type: 'Unconfined' } };
      annotate(t, { [SCC + 'app']: 'runtime/default' });
    },
  ],
  [
    // a backslash is no separator on Linux (validatePathNoBacksteps)
    'seccomp profiles with backslashes',
    (s, t) => {
      s.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: 'a\\..\\b' } };
      annotate(t, { [SCC + 'app']: 'localhost/..\\b' });
    },
  ],
  [
    'deletion cost with a leading zero',
    (_s, t) => annotate(t, { 'controller.kubernetes.io/pod-deletion-cost': '007' }),
  ],
  ['deletion cost negative', (_s, t) => annotate(t, { 'controller.kubernetes.io/pod-deletion-cost': '-05' })],
  ['mirror annotation without nodeName', (_s, t) => annotate(t, { 'kubernetes.io/config.mirror': 'x' })],
  [
    'mirror annotation with nodeName',
    (s, t) => {
      s.nodeName = 'node-1';
      annotate(t, { 'kubernetes.io/config.mirror': 'x' });
    },
  ],
  [
    'tolerations annotation with a bad key',
    (_s, t) => annotate(t, { 'scheduler.alpha.kubernetes.io/tolerations': '[{"key":"a b","operator":"Exists"}]' }),
  ],
  [
    'tolerations annotation valid',
    (_s, t) => annotate(t, { 'scheduler.alpha.kubernetes.io/tolerations': '[{"key":"a","operator":"Exists"}]' }),
  ],
  // what Go's encoding/json does not decode into []core.Toleration is refused at the annotations
  ...(
    [
      ['not JSON', 'nope'],
      ['JSON with text after it', '[{"key":"a","operator":"Exists"}] x'],
      ['only spaces', '  '],
      ['an object', '{}'],
      ['a list of numbers', '[1]'],
      ['a number key', '[{"key":1}]'],
      ['a fractional tolerationSeconds', '[{"key":"a","operator":"Exists","tolerationSeconds":1.5}]'],
      ['a string tolerationSeconds', '[{"key":"a","operator":"Exists","tolerationSeconds":"5"}]'],
      ['a number effect', '[{"key":"a","operator":"Exists","effect":7}]'],
      ['null', 'null'],
      ['a null toleration', '[null]'],
      ['null fields and an unknown one', '[{"key":null,"operator":"Exists","color":1}]'],
      ['an upper-case KEY with a bad value (fields match case-insensitively)', '[{"KEY":"a b","operator":"Exists"}]'],
    ] as const
  ).map(([what, text]): readonly [string, Mutation] => [
    `tolerations annotation: ${what}`,
    (_s, t) => annotate(t, { 'scheduler.alpha.kubernetes.io/tolerations': text }),
  ]),
  // sysctls: the slash form is another spelling, not a duplicate; its namespace is the dotted name's
  [
    'sysctls in both forms',
    (s) =>
      (s.securityContext = {
        sysctls: [
          { name: 'net.ipv4.ip_forward', value: '1' },
          { name: 'net/ipv4/ip_forward', value: '1' },
          { name: 'net/ipv4/conf/eth0.1/forwarding', value: '1' },
        ],
      }),
  ],
  [
    'sysctl slash form with hostNetwork',
    (s) =>
      Object.assign(s, {
        hostNetwork: true,
        securityContext: { sysctls: [{ name: 'net/core/somaxconn', value: '1' }] },
      }),
  ],
];
