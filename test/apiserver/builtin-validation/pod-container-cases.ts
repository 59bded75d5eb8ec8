import { Mutation } from './pod-spec-cases';
import { VOLUME_SOURCES } from '../../../lib/apiserver/builtin-validation/pod-spec-volumes';

/**
 * The pod template cases of the container-level fields found by the additions differential (resizePolicy, a
 * container's restartPolicy and rules, resources.claims, procMount, Windows options, recursiveReadOnly mounts, image
 * volumes, the pod's OS), each a valid base (pod-spec-cases.ts's `basePodSpec`) plus one mutation.
 */

const c0 = (s: any) => s.containers[0];
const resize = (resourceName: string, restartPolicy: string) => ({ resourceName, restartPolicy });
const rule = (action: string, operator?: string, values?: number[]) => ({
  action,
  ...(operator === undefined ? {} : { exitCodes: { operator, ...(values ? { values } : {}) } }),
});
const sidecar = (rules: any[]) => ({ name: 'i', image: 'x', restartPolicy: 'Always', restartPolicyRules: rules });
const eph = (c: any) => ({ name: 'e', image: 'x', ...c });
const withClaims = (s: any) =>
  (s.resourceClaims = [
    { name: 'gpu', resourceClaimName: 'c' },
    { name: 'b', resourceClaimName: 'c' },
  ]);
const windows = (o: any) => (s: any) => (c0(s).securityContext.windowsOptions = o);
const hostProcess = (s: any) => {
  s.hostNetwork = true;
  c0(s).ports = [];
};
const imageVolume =
  (image: any, mount: any = {}) =>
  (s: any) => {
    s.volumes.push({ name: 'img', image });
    c0(s).volumeMounts.push({ name: 'img', mountPath: '/img', ...mount });
  };

/** The volume sources (not `image`: a field from 1.31), in the order validateVolumeSource counts them. */
const ALL_SOURCES = VOLUME_SOURCES.filter((s) => s !== 'image');
/** Each in-tree source with what its check refuses. */
const BAD_SOURCES: ReadonlyArray<readonly [string, any]> = [
  ['gitRepo', { directory: '/a/../b' }],
  ['gcePersistentDisk', { partition: 256 }],
  ['awsElasticBlockStore', { partition: 65535 }],
  ['nfs', { server: 's', path: 'a:b' }],
  ['nfs', {}],
  ['iscsi', { iqn: 'foo', lun: 256, chapAuthSession: true, initiatorName: 'bar' }],
  ['iscsi', { targetPortal: 'p', iqn: 'iqn.x', initiatorName: 'eui.12' }],
  ['glusterfs', {}],
  ['flocker', {}],
  ['flocker', { datasetName: 'a/b', datasetUUID: 'u' }],
  ['rbd', {}],
  ['cinder', { secretRef: {} }],
  ['cephfs', { monitors: [] }],
  ['quobyte', {}],
  ['quobyte', { registry: 'a,b:1,[::1]:2,::1:3', volume: 'v' }],
  ['quobyte', { registry: 'r:1', tenant: 'a'.repeat(65) }],
  ['fc', {}],
  ['fc', { targetWWNs: ['a'], wwids: ['b'] }],
  ['fc', { targetWWNs: ['a'], lun: 300 }],
  ['flexVolume', { options: { 'kubernetes.io/a': 'x', 'A.K8S.IO': 'y', 'example.com/b': 'z' } }],
  ['azureFile', {}],
  ['vsphereVolume', {}],
  ['photonPersistentDisk', {}],
  ['portworxVolume', {}],
  ['azureDisk', {}],
  ['azureDisk', { diskName: 'd', diskURI: 'x', kind: 'Managed', cachingMode: 'Foo' }],
  ['azureDisk', { diskName: 'd', diskURI: 'x', kind: 'Bar' }],
  ['storageos', { volumeName: 'A_b', volumeNamespace: 'C.d', secretRef: {} }],
  ['storageos', {}],
  ['scaleIO', {}],
];
/** More of them: an ephemeral volume's claim template. */
const BAD_SOURCES_2: ReadonlyArray<readonly [string, any]> = [
  ['ephemeral', {}],
  ['ephemeral', { volumeClaimTemplate: {} }],
  ['ephemeral', { volumeClaimTemplate: { metadata: { labels: { 'a b': 'c' } }, spec: { accessModes: ['Foo'] } } }],
];
/** Each in-tree source as its check accepts it. */
const GOOD_SOURCES: ReadonlyArray<readonly [string, any]> = [
  ['gitRepo', { repository: 'https://example.com/r.git', directory: 'a' }],
  ['gcePersistentDisk', { pdName: 'p', partition: 0 }],
  ['awsElasticBlockStore', { volumeID: 'v', partition: 255 }],
  ['nfs', { server: 's', path: '/a' }],
  [
    'iscsi',
    { targetPortal: 'p', iqn: 'iqn.2001-04.com.example:storage', lun: 0, initiatorName: 'naa.' + 'a'.repeat(33) },
  ],
  ['glusterfs', { endpoints: 'e', path: 'p' }],
  ['flocker', { datasetUUID: 'u' }],
  ['rbd', { monitors: ['m'], image: 'i' }],
  ['cinder', { volumeID: 'v' }],
  ['cephfs', { monitors: ['m'] }],
  ['quobyte', { registry: 'a:1,[::1]:2,:3', volume: 'v' }],
  ['fc', { wwids: ['w'] }],
  ['flexVolume', { driver: 'd', options: { 'example.com/a': 'x' } }],
  ['azureFile', { secretName: 's', shareName: 's' }],
  ['vsphereVolume', { volumePath: 'p' }],
  ['photonPersistentDisk', { pdID: 'p' }],
  ['portworxVolume', { volumeID: 'v' }],
  ['azureDisk', { diskName: 'd', diskURI: '/subscriptions/x', kind: 'Managed' }],
  ['storageos', { volumeName: 'v' }],
  ['scaleIO', { gateway: 'g', system: 's', volumeName: 'v', secretRef: { name: 's' } }],
  [
    'ephemeral',
    { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
  ],
];

/** `[name, mutation]`: each is a valid base plus one mutation. */
export const POD_CONTAINER_CASES: ReadonlyArray<readonly [string, Mutation]> = [
  // resizePolicy: dropped by 1.28 and 1.32, checked by 1.36
  [
    'resizePolicy valid',
    (s) => (c0(s).resizePolicy = [resize('cpu', 'NotRequired'), resize('memory', 'RestartContainer')]),
  ],
  ['resizePolicy unknown resource and policy', (s) => (c0(s).resizePolicy = [resize('gpu', 'Foo')])],
  ['resizePolicy empty', (s) => (c0(s).resizePolicy = [resize('', '')])],
  [
    'resizePolicy duplicates',
    (s) =>
      (c0(s).resizePolicy = [resize('cpu', 'NotRequired'), resize('cpu', 'NotRequired'), resize('a', 'NotRequired')]),
  ],
  [
    'resizePolicy RestartContainer with restartPolicy Never',
    (s) => {
      s.restartPolicy = 'Never';
      c0(s).resizePolicy = [resize('memory', 'RestartContainer'), resize('cpu', '')];
    },
  ],
  [
    'resizePolicy of an init container',
    (s) => (s.initContainers = [{ name: 'i', image: 'x', resizePolicy: [resize('x', 'NotRequired')] }]),
  ],
  // a container's restartPolicy and restartPolicyRules (the rules: a 1.36 field)
  ['container restartPolicy Never', (s) => (c0(s).restartPolicy = 'Never')],
  ['container restartPolicy empty', (s) => (c0(s).restartPolicy = '')],
  ['container restartPolicy foo', (s) => (c0(s).restartPolicy = 'foo')],
  [
    'init container restartPolicy Never',
    (s) => (s.initContainers = [{ name: 'i', image: 'x', restartPolicy: 'Never' }]),
  ],
  ['init container restartPolicy empty', (s) => (s.initContainers = [{ name: 'i', image: 'x', restartPolicy: '' }])],
  // restartPolicyRules (a 1.36 field), on sidecars: 1.32 refuses a regular container's restartPolicy besides
  [
    'restartPolicyRules valid',
    (s) => (s.initContainers = [sidecar([rule('Restart', 'In', [1, 2]), rule('RestartAllContainers', 'NotIn')])]),
  ],
  ['restartPolicyRules without restartPolicy', (s) => (c0(s).restartPolicyRules = [rule('Restart', 'In', [1])])],
  [
    'restartPolicyRules bad',
    (s) => (s.initContainers = [sidecar([rule('Foo', 'Bar', [1]), rule(''), rule('Restart', '')])]),
  ],
  [
    'restartPolicyRules too many',
    (s) => (s.initContainers = [sidecar(Array.from({ length: 21 }, (_, i) => rule('Restart', 'In', [i])))]),
  ],
  [
    'restartPolicyRules too many exit codes',
    (s) =>
      (s.initContainers = [
        sidecar([
          rule(
            'Restart',
            'In',
            Array.from({ length: 256 }, (_, i) => i),
          ),
        ]),
      ]),
  ],
  [
    'init container restartPolicyRules without restartPolicy',
    (s) => (s.initContainers = [{ name: 'i', image: 'x', restartPolicyRules: [rule('Restart', 'In', [1])] }]),
  ],
  // resources.claims: dropped by 1.32 (a 1.31 field: 1.28's decoding refuses the pod's), checked by 1.36
  ['claims valid', (s) => (withClaims(s), (c0(s).resources.claims = [{ name: 'gpu' }, { name: 'b', request: 'r' }]))],
  ['claims without pod claims', (s) => (c0(s).resources.claims = [{ name: 'gpu' }])],
  ['claims unknown name', (s) => (withClaims(s), (c0(s).resources.claims = [{ name: 'x' }]))],
  ['claims empty name', (s) => (withClaims(s), (c0(s).resources.claims = [{ name: '', request: 'B' }]))],
  [
    'claims duplicates',
    (s) => {
      withClaims(s);
      c0(s).resources.claims = [
        { name: 'gpu', request: 'a' },
        { name: 'gpu', request: 'a' },
        { name: 'gpu', request: 'b' },
        { name: 'gpu' },
        { name: 'b' },
        { name: 'b', request: 'c' },
      ];
    },
  ],
  ['claims bad request', (s) => (withClaims(s), (c0(s).resources.claims = [{ name: 'gpu', request: 'A_b' }]))],
  [
    'init container claims',
    (s) => (s.initContainers = [{ name: 'i', image: 'x', resources: { claims: [{ name: 'n' }] } }]),
  ],
  // procMount Unmasked: a user namespace from 1.33
  ['procMount Unmasked', (s) => (c0(s).securityContext.procMount = 'Unmasked')],
  [
    'procMount Unmasked without host users',
    (s) => ((c0(s).securityContext.procMount = 'Unmasked'), (s.hostUsers = false)),
  ],
  [
    'init container procMount Unmasked',
    (s) => (s.initContainers = [{ name: 'i', image: 'x', securityContext: { procMount: 'Unmasked' } }]),
  ],
  // windowsOptions
  ['windowsOptions gmsaCredentialSpecName bad', windows({ gmsaCredentialSpecName: 'Ab' })],
  ['windowsOptions gmsaCredentialSpec empty', windows({ gmsaCredentialSpec: '' })],
  ['windowsOptions gmsaCredentialSpec over 64 KiB', windows({ gmsaCredentialSpec: 'a'.repeat(64 * 1024 + 1) })],
  ['windowsOptions runAsUserName empty', windows({ runAsUserName: '' })],
  ['windowsOptions runAsUserName bad characters', windows({ runAsUserName: 'a"b' })],
  ['windowsOptions runAsUserName dots', windows({ runAsUserName: 'dom\\..' })],
  ['windowsOptions runAsUserName control', windows({ runAsUserName: 'a\tb' })],
  ['windowsOptions runAsUserName long user', windows({ runAsUserName: 'a'.repeat(105) })],
  ['windowsOptions runAsUserName two backslashes', windows({ runAsUserName: 'a\\b\\c' })],
  ['windowsOptions runAsUserName domain only', windows({ runAsUserName: 'dom\\' })],
  ['windowsOptions runAsUserName bad domain', windows({ runAsUserName: '.a*\\user' })],
  ['windowsOptions runAsUserName long domain', windows({ runAsUserName: `${'a.'.repeat(128)}\\u` })],
  ['windowsOptions runAsUserName valid', windows({ runAsUserName: 'NT AUTHORITY\\SYSTEM' })],
  [
    'hostProcess container beside another',
    (s) => {
      hostProcess(s);
      c0(s).securityContext.windowsOptions = { hostProcess: true };
      s.initContainers = [{ name: 'i', image: 'x' }];
    },
  ],
  [
    'hostProcess pod and container differ',
    (s) => {
      hostProcess(s);
      s.securityContext = { windowsOptions: { hostProcess: true } };
      c0(s).securityContext.windowsOptions = { hostProcess: false };
    },
  ],
  [
    'hostProcess pod and containers',
    (s) => {
      hostProcess(s);
      s.securityContext = { windowsOptions: { hostProcess: true } };
      s.containers.push({ name: 'b', image: 'x', securityContext: { windowsOptions: { hostProcess: true } } });
    },
  ],
  // the pod's OS
  ['linux pod with container windowsOptions', (s) => ((s.os = { name: 'linux' }), windows({ runAsUserName: 'a' })(s))],
  [
    'windows pod with linux container settings',
    (s) => {
      s.os = { name: 'windows' };
      Object.assign(c0(s).securityContext, {
        seLinuxOptions: { level: 's0' },
        seccompProfile: { type: 'RuntimeDefault' },
        readOnlyRootFilesystem: false,
        privileged: false,
        runAsGroup: 1,
      });
      s.initContainers = [{ name: 'i', image: 'x', securityContext: { procMount: 'Default' } }];
    },
  ],
  [
    'windows pod with windowsOptions',
    (s) => ((s.os = { name: 'windows' }), (c0(s).securityContext = { windowsOptions: { runAsUserName: 'u' } })),
  ],
  // recursiveReadOnly mounts (a 1.30 field)
  ['recursiveReadOnly Fail', (s) => (c0(s).volumeMounts[0].recursiveReadOnly = 'Fail')],
  ['recursiveReadOnly empty', (s) => (c0(s).volumeMounts[0].recursiveReadOnly = '')],
  ['recursiveReadOnly Enabled read-write', (s) => (c0(s).volumeMounts[0].recursiveReadOnly = 'Enabled')],
  [
    'recursiveReadOnly IfPossible with propagation',
    (s) =>
      Object.assign(c0(s).volumeMounts[0], {
        recursiveReadOnly: 'IfPossible',
        readOnly: true,
        mountPropagation: 'HostToContainer',
      }),
  ],
  [
    'recursiveReadOnly Enabled read-only',
    (s) =>
      Object.assign(c0(s).volumeMounts[0], { recursiveReadOnly: 'Enabled', readOnly: true, mountPropagation: 'None' }),
  ],
  ['recursiveReadOnly Disabled read-write', (s) => (c0(s).volumeMounts[0].recursiveReadOnly = 'Disabled')],
  // image volumes (a 1.31 field): 1.32 drops them and their mounts, 1.36 checks them
  ['image volume', imageVolume({ reference: 'busybox:1' })],
  ['image volume pullPolicy bad', imageVolume({ reference: 'busybox', pullPolicy: 'HTTP' })],
  ['image volume beside another source', (s) => (s.volumes[0].image = { reference: 'busybox' })],
  [
    // 1.28 knows no image source (a claim's volume), 1.32 drops the volume, 1.36 refuses its two sources
    'image volume with a claim named by a device',
    (s) => {
      s.volumes.unshift({ name: 'img', persistentVolumeClaim: { claimName: 'c' }, image: { reference: 'x' } });
      c0(s).volumeDevices = [{ name: 'img', devicePath: '/dev/img' }];
    },
  ],
  // volumeDevices: block devices of claims, apart from the mounts
  [
    'volumeDevices of a claim',
    (s) => {
      s.volumes.push({ name: 'pvc', persistentVolumeClaim: { claimName: 'c' } });
      c0(s).volumeDevices = [{ name: 'pvc', devicePath: '/dev/pvc' }];
    },
  ],
  ['volumeDevices of an emptyDir', (s) => (c0(s).volumeDevices = [{ name: 'data', devicePath: '/dev/x' }])],
  ['volumeDevices name empty', (s) => (c0(s).volumeDevices = [{ name: '', devicePath: '/dev/x' }])],
  [
    'volumeDevices repeated',
    (s) => {
      s.volumes.push({ name: 'pvc', persistentVolumeClaim: { claimName: 'c' } });
      c0(s).volumeDevices = [
        { name: 'pvc', devicePath: '/dev/a/../b' },
        { name: 'pvc', devicePath: '/dev/a/../b' },
        { name: 'pvc', devicePath: '' },
        { name: 'pvc', devicePath: '/data' },
      ];
    },
  ],
  [
    'volumeDevices of a mounted claim',
    (s) => {
      s.volumes.push({ name: 'pvc', persistentVolumeClaim: { claimName: 'c' } });
      c0(s).volumeMounts.push({ name: 'pvc', mountPath: '/dev/pvc' });
      c0(s).volumeDevices = [{ name: 'pvc', devicePath: '/dev/pvc' }];
    },
  ],
  // envFrom: the ConfigMap's and Secret's names as prefixes (ValidateConfigMapName(name, true))
  ['envFrom configMapRef name with a trailing dash', (s) => (c0(s).envFrom[0].configMapRef.name = 'cm-')],
  ['envFrom secretRef name with a trailing dash', (s) => (c0(s).envFrom = [{ secretRef: { name: 'a--' } }])],
  ['envFrom secretRef name a dash', (s) => (c0(s).envFrom = [{ secretRef: { name: '-' } }])],
  ['envFrom configMapRef name upper with a trailing dash', (s) => (c0(s).envFrom[0].configMapRef.name = 'Cm-')],
  // ephemeral containers: refused, and checked as the others
  [
    'ephemeral container with ports and probes',
    (s) => (s.ephemeralContainers = [eph({ ports: [], readinessProbe: { exec: { command: ['a'] } }, lifecycle: {} })]),
  ],
  [
    'ephemeral container with resources',
    (s) => (s.ephemeralContainers = [eph({ resources: { limits: { cpu: '1' } } })]),
  ],
  ['ephemeral container with empty resources', (s) => (s.ephemeralContainers = [eph({ resources: {} })])],
  ['ephemeral container restartPolicy', (s) => (s.ephemeralContainers = [eph({ restartPolicy: 'Always' })])],
  ['ephemeral container resizePolicy', (s) => (s.ephemeralContainers = [eph({ resizePolicy: [resize('cpu', 'x')] })])],
  [
    'ephemeral container named as a container',
    (s) => (s.ephemeralContainers = [eph({ name: 'app', targetContainerName: 'nope' })]),
  ],
  [
    'ephemeral container name and image bad',
    (s) => (s.ephemeralContainers = [eph({ name: 'A_b', image: ' x' }), eph({ image: '' })]),
  ],
  [
    'ephemeral container subPath',
    (s) =>
      (s.ephemeralContainers = [
        eph({ volumeMounts: [{ name: 'data', mountPath: '/d', subPath: 'a', subPathExpr: 'b' }] }),
      ]),
  ],
  [
    'ephemeral container bad mount',
    (s) => (s.ephemeralContainers = [eph({ volumeMounts: [{ name: 'nope', mountPath: '/d' }] })]),
  ],
  // lifecycle sleep (a 1.29 field): within the pod's grace period, zero from 1.33
  ['lifecycle sleep 0', (s) => (c0(s).lifecycle = { preStop: { sleep: { seconds: 0 } } })],
  ['lifecycle sleep -1', (s) => (c0(s).lifecycle = { preStop: { sleep: { seconds: -1 } } })],
  ['lifecycle sleep 30', (s) => (c0(s).lifecycle = { preStop: { sleep: { seconds: 30 } } })],
  ['lifecycle sleep 31', (s) => (c0(s).lifecycle = { postStart: { sleep: { seconds: 31 } } })],
  [
    'lifecycle sleep over a short grace period',
    (s) => ((s.terminationGracePeriodSeconds = 5), (c0(s).lifecycle = { preStop: { sleep: { seconds: 10 } } })),
  ],
  // a fieldRef's apiVersion: empty is defaulted to v1
  ['fieldRef apiVersion empty', (s) => (c0(s).env[1].valueFrom.fieldRef.apiVersion = '')],
  [
    'downwardAPI volume fieldRef apiVersion empty',
    (s) =>
      s.volumes.push({
        name: 'd',
        downwardAPI: { items: [{ path: 'x', fieldRef: { apiVersion: '', fieldPath: 'metadata.name' } }] },
      }),
  ],
  // a port's protocol: empty is defaulted to TCP
  ['port protocol empty', (s) => c0(s).ports.push({ containerPort: 81, protocol: '' })],
  // csi volumes: the driver's name, the node publish secret's
  ['csi volume driver with a trailing dash', (s) => s.volumes.push({ name: 'c', csi: { driver: 'a-' } })],
  ['csi volume driver empty', (s) => s.volumes.push({ name: 'c', csi: { driver: '' } })],
  ['csi volume driver upper case', (s) => s.volumes.push({ name: 'c', csi: { driver: 'Example.COM' } })],
  ['csi volume driver 64 bytes', (s) => s.volumes.push({ name: 'c', csi: { driver: `${'a'.repeat(60)}.com` } })],
  [
    'csi volume node publish secret names',
    (s) =>
      s.volumes.push(
        { name: 'c', csi: { driver: 'd.example.com', nodePublishSecretRef: { name: 'Bad_Name' } } },
        { name: 'e', csi: { driver: 'd.example.com', nodePublishSecretRef: {} } },
      ),
  ],
  // volume sources: the first one found checked (validateXxxVolumeSource), the later ones forbidden
  [
    'volume with every source',
    (s) => s.volumes.push({ name: 'v', ...Object.fromEntries(ALL_SOURCES.map((k) => [k, {}])) }),
  ],
  [
    'volume with every source but emptyDir',
    (s) => s.volumes.push({ name: 'v', ...Object.fromEntries(ALL_SOURCES.slice(1).map((k) => [k, {}])) }),
  ],
  [
    'volume sources bad, one each',
    (s) => s.volumes.push(...BAD_SOURCES.map(([k, v], i) => ({ name: `v${i}`, [k]: v }))),
  ],
  [
    'volume sources bad, another kind',
    (s) => s.volumes.push(...BAD_SOURCES_2.map(([k, v], i) => ({ name: `w${i}`, [k]: v }))),
  ],
  ['volume sources valid', (s) => s.volumes.push(...GOOD_SOURCES.map(([k, v], i) => ({ name: `g${i}`, [k]: v })))],
  [
    'volume iscsi initiator with a long name',
    (s) =>
      s.volumes.push({
        name: 'a'.repeat(50),
        secret: { secretName: 's' },
        iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', initiatorName: 'x' },
      }),
  ],
  [
    'downwardAPI volume items: neither, both',
    (s) =>
      s.volumes.push({
        name: 'd',
        downwardAPI: {
          defaultMode: -1,
          items: [
            { path: 'a' },
            { path: 'b', fieldRef: { fieldPath: 'metadata.name' }, resourceFieldRef: { resource: 'limits.cpu' } },
            { path: '..a/..', fieldRef: {} },
          ],
        },
      }),
  ],
  // an ephemeral container's resources holding claims only: dropped with them where DRA is off (1.28, 1.32)
  [
    'ephemeral container resources claims only',
    (s) => (s.ephemeralContainers = [eph({ resources: { claims: [{ name: 'c' }] } })]),
  ],
  // seccomp: a bad type and a localhostProfile beside it
  [
    'seccomp bad type with localhostProfile',
    (s) => (s.securityContext = { seccompProfile: { type: 'None', localhostProfile: 'x' } }),
  ],
  [
    'seccomp empty type with localhostProfile',
    (s) => (c0(s).securityContext.seccompProfile = { type: '', localhostProfile: '' }),
  ],
  [
    'seccomp RuntimeDefault with localhostProfile',
    (s) => (c0(s).securityContext.seccompProfile = { type: 'RuntimeDefault', localhostProfile: 'a' }),
  ],
  // a backslash is no separator on Linux (validatePathNoBacksteps)
  ['subPath with backslashes', (s) => (c0(s).volumeMounts[0].subPath = 'a\\..\\b')],
];
