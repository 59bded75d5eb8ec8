import { POD_EPHEMERAL_CASES } from './pod-spec-cases-ephemeral';
import { POD_LEVEL_CASES } from './pod-spec-cases-pod-level';

/**
 * The pod template cases of the differential suite: a valid pod spec (and a Deployment and a Job holding it) plus one
 * mutation each, in the order of what users writing a Deployment by hand get wrong.
 */

/** A mutation of a pod spec (a deep copy of the base), on the Pod itself or on a workload's template. */
export type Mutation = (spec: any, template: any) => void;

/** A valid pod spec with a bit of everything: ports, env, volumes, mounts, resources, probes, securityContext. */
export function basePodSpec(): any {
  return {
    containers: [
      {
        name: 'app',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, name: 'http' }],
        env: [
          { name: 'A', value: '1' },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        envFrom: [{ configMapRef: { name: 'cm' }, prefix: 'CM_' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
        readinessProbe: { tcpSocket: { port: 80 } },
        securityContext: { runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  };
}

const c0 = (s: any) => s.containers[0];

/** `[name, mutation]`: each is a valid base plus one mutation (the first, none). */
export const POD_SPEC_CASES: ReadonlyArray<readonly [string, Mutation]> = [
  ['the valid base', () => {}],
  // containers
  ['no containers', (s) => (s.containers = [])],
  ['containers missing', (s) => delete s.containers],
  ['container name UPPER', (s) => (c0(s).name = 'UPPER')],
  ['container name empty', (s) => (c0(s).name = '')],
  ['container name with a dot', (s) => (c0(s).name = 'a.b')],
  ['container name 64 chars', (s) => (c0(s).name = 'a'.repeat(64))],
  ['duplicate container names', (s) => s.containers.push({ name: 'app', image: 'busybox' })],
  ['init container named as a container', (s) => (s.initContainers = [{ name: 'app', image: 'busybox' }])],
  ['image missing', (s) => delete c0(s).image],
  ['image empty', (s) => (c0(s).image = '')],
  ['image with a leading space', (s) => (c0(s).image = ' nginx')],
  ['init container without image', (s) => (s.initContainers = [{ name: 'init' }])],
  // an empty string is unset to the apiserver's defaulting (found by `bench/builtin-differential.ts --per-object sweep`)
  ['imagePullPolicy empty', (s) => (c0(s).imagePullPolicy = '')],
  ['imagePullPolicy always', (s) => (c0(s).imagePullPolicy = 'always')],
  ['terminationMessagePolicy empty', (s) => (c0(s).terminationMessagePolicy = '')],
  ['httpGet scheme empty', (s) => (c0(s).livenessProbe.httpGet.scheme = '')],
  ['httpGet scheme http', (s) => (c0(s).livenessProbe.httpGet.scheme = 'http')],
  ['dnsPolicy empty', (s) => (s.dnsPolicy = '')],
  [
    'podAffinity preferred term without weight',
    (s) =>
      (s.affinity = {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ podAffinityTerm: { topologyKey: 'zone' } }],
        },
      }),
  ],
  [
    'nodeAffinity preferred term without weight',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } },
          ],
        },
      }),
  ],
  ['imagePullPolicy Sometimes', (s) => (c0(s).imagePullPolicy = 'Sometimes')],
  ['terminationMessagePolicy Foo', (s) => (c0(s).terminationMessagePolicy = 'Foo')],
  ['terminationMessagePath relative', (s) => (c0(s).terminationMessagePath = 'log')],
  // ports
  ['containerPort 99999', (s) => (c0(s).ports[0].containerPort = 99999)],
  ['containerPort 0', (s) => (c0(s).ports[0].containerPort = 0)],
  ['containerPort missing', (s) => delete c0(s).ports[0].containerPort],
  ['containerPort -1', (s) => (c0(s).ports[0].containerPort = -1)],
  ['hostPort 70000', (s) => (c0(s).ports[0].hostPort = 70000)],
  ['hostPort -1', (s) => (c0(s).ports[0].hostPort = -1)],
  ['port name 16 chars', (s) => (c0(s).ports[0].name = 'abcdefghijklmnop')],
  ['port name upper case', (s) => (c0(s).ports[0].name = 'HTTP')],
  ['port name digits only', (s) => (c0(s).ports[0].name = '8080')],
  ['port name with --', (s) => (c0(s).ports[0].name = 'a--b')],
  ['port name ending with -', (s) => (c0(s).ports[0].name = 'http-')],
  ['duplicate port names', (s) => c0(s).ports.push({ containerPort: 81, name: 'http' })],
  [
    'duplicate port names across containers',
    (s) => s.containers.push({ name: 'b', image: 'x', ports: [{ containerPort: 81, name: 'http' }] }),
  ],
  ['protocol http', (s) => (c0(s).ports[0].protocol = 'http')],
  ['duplicate containerPort', (s) => c0(s).ports.push({ containerPort: 80 })],
  ['same containerPort UDP', (s) => c0(s).ports.push({ containerPort: 80, protocol: 'UDP' })],
  [
    'duplicate hostPort across containers',
    (s) => {
      c0(s).ports[0].hostPort = 8080;
      s.containers.push({ name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080 }] });
    },
  ],
  ['hostIP invalid', (s) => (c0(s).ports[0].hostIP = 'nope')],
  [
    'hostNetwork with hostPort other than containerPort',
    (s) => {
      s.hostNetwork = true;
      c0(s).ports[0].hostPort = 8080;
    },
  ],
  ['hostNetwork without hostPort', (s) => (s.hostNetwork = true)],
  // env
  ['env name with a space', (s) => (c0(s).env[0].name = 'A B')],
  ['env name starting with a digit', (s) => (c0(s).env[0].name = '1A')],
  ['env name with =', (s) => (c0(s).env[0].name = 'A=B')],
  ['env name with a dot and dash', (s) => (c0(s).env[0].name = 'my.var-x')],
  ['env name empty', (s) => (c0(s).env[0].name = '')],
  ['env name with a colon', (s) => (c0(s).env[0].name = 'a:b')],
  ['env name non-ASCII', (s) => (c0(s).env[0].name = 'é')],
  ['env value and valueFrom', (s) => (c0(s).env[1].value = 'x')],
  ['env valueFrom empty', (s) => (c0(s).env[1].valueFrom = {})],
  ['env valueFrom two sources', (s) => (c0(s).env[1].valueFrom.secretKeyRef = { name: 's', key: 'k' })],
  ['fieldRef unsupported path', (s) => (c0(s).env[1].valueFrom.fieldRef.fieldPath = 'metadata.foo')],
  ['fieldRef labels subscript', (s) => (c0(s).env[1].valueFrom.fieldRef.fieldPath = "metadata.labels['app']")],
  ['fieldRef status.podIP', (s) => (c0(s).env[1].valueFrom.fieldRef.fieldPath = 'status.podIP')],
  ['fieldRef spec.nodeName', (s) => (c0(s).env[1].valueFrom.fieldRef.fieldPath = 'spec.nodeName')],
  ['fieldRef bad apiVersion', (s) => (c0(s).env[1].valueFrom.fieldRef.apiVersion = 'v2')],
  ['fieldRef path empty', (s) => (c0(s).env[1].valueFrom.fieldRef.fieldPath = '')],
  ['resourceFieldRef valid', (s) => (c0(s).env[1].valueFrom = { resourceFieldRef: { resource: 'limits.memory' } })],
  ['resourceFieldRef bad resource', (s) => (c0(s).env[1].valueFrom = { resourceFieldRef: { resource: 'limits.foo' } })],
  [
    'resourceFieldRef unknown container',
    (s) => (c0(s).env[1].valueFrom = { resourceFieldRef: { resource: 'limits.cpu', containerName: 'nope' } }),
  ],
  [
    'resourceFieldRef divisor bad',
    (s) => (c0(s).env[1].valueFrom = { resourceFieldRef: { resource: 'limits.cpu', divisor: '3' } }),
  ],
  ['configMapKeyRef bad key', (s) => (c0(s).env[1].valueFrom = { configMapKeyRef: { name: 'cm', key: 'bad key' } })],
  ['configMapKeyRef no key', (s) => (c0(s).env[1].valueFrom = { configMapKeyRef: { name: 'cm' } })],
  ['configMapKeyRef no name', (s) => (c0(s).env[1].valueFrom = { configMapKeyRef: { key: 'k' } })],
  ['secretKeyRef bad name', (s) => (c0(s).env[1].valueFrom = { secretKeyRef: { name: 'Bad_Name', key: 'k' } })],
  ['envFrom prefix starting with a digit', (s) => (c0(s).envFrom[0].prefix = '1_')],
  ['envFrom prefix with a space', (s) => (c0(s).envFrom[0].prefix = 'A B')],
  ['envFrom without source', (s) => (c0(s).envFrom = [{ prefix: 'X_' }])],
  ['envFrom two sources', (s) => (c0(s).envFrom[0].secretRef = { name: 's' })],
  ['envFrom configMapRef bad name', (s) => (c0(s).envFrom[0].configMapRef.name = 'Bad_Name')],
  // volumes
  [
    'volume name UPPER',
    (s) => {
      s.volumes[0].name = 'DATA';
      c0(s).volumeMounts[0].name = 'DATA';
    },
  ],
  ['volume name empty', (s) => s.volumes.push({ name: '', emptyDir: {} })],
  ['duplicate volume names', (s) => s.volumes.push({ name: 'data', emptyDir: {} })],
  ['volume without source', (s) => s.volumes.push({ name: 'x' })],
  ['volume with two sources', (s) => (s.volumes[0].configMap = { name: 'cm' })],
  [
    'configMap volume item path ..',
    (s) => s.volumes.push({ name: 'c', configMap: { name: 'cm', items: [{ key: 'k', path: '../x' }] } }),
  ],
  [
    'configMap volume item path absolute',
    (s) => s.volumes.push({ name: 'c', configMap: { name: 'cm', items: [{ key: 'k', path: '/x' }] } }),
  ],
  [
    'configMap volume item key empty',
    (s) => s.volumes.push({ name: 'c', configMap: { name: 'cm', items: [{ key: '', path: 'x' }] } }),
  ],
  [
    'configMap volume item path empty',
    (s) => s.volumes.push({ name: 'c', configMap: { name: 'cm', items: [{ key: 'k', path: '' }] } }),
  ],
  ['configMap volume no name', (s) => s.volumes.push({ name: 'c', configMap: {} })],
  [
    'configMap volume defaultMode 01000',
    (s) => s.volumes.push({ name: 'c', configMap: { name: 'cm', defaultMode: 0o1000 } }),
  ],
  [
    'secret volume item mode -1',
    (s) => s.volumes.push({ name: 's', secret: { secretName: 's', items: [{ key: 'k', path: 'x', mode: -1 }] } }),
  ],
  ['secret volume without secretName', (s) => s.volumes.push({ name: 's', secret: {} })],
  ['secret volume bad secretName', (s) => s.volumes.push({ name: 's', secret: { secretName: 'Bad_Name' } })],
  ['emptyDir sizeLimit negative', (s) => (s.volumes[0].emptyDir.sizeLimit = '-1Gi')],
  ['emptyDir medium Foo', (s) => (s.volumes[0].emptyDir.medium = 'Foo')],
  ['hostPath path empty', (s) => s.volumes.push({ name: 'h', hostPath: { path: '' } })],
  ['hostPath path with ..', (s) => s.volumes.push({ name: 'h', hostPath: { path: '/a/../b' } })],
  ['hostPath type Foo', (s) => s.volumes.push({ name: 'h', hostPath: { path: '/a', type: 'Foo' } })],
  ['pvc claimName empty', (s) => s.volumes.push({ name: 'p', persistentVolumeClaim: { claimName: '' } })],
  ['projected source empty', (s) => s.volumes.push({ name: 'p', projected: { sources: [{}] } })],
  [
    'projected two kinds in one source',
    (s) => s.volumes.push({ name: 'p', projected: { sources: [{ configMap: { name: 'a' }, secret: { name: 'b' } }] } }),
  ],
  [
    'projected conflicting paths',
    (s) =>
      s.volumes.push({
        name: 'p',
        projected: {
          sources: [
            { configMap: { name: 'a', items: [{ key: 'k', path: 'x' }] } },
            { secret: { name: 'b', items: [{ key: 'k', path: 'x' }] } },
          ],
        },
      }),
  ],
  [
    'projected serviceAccountToken short',
    (s) =>
      s.volumes.push({
        name: 'p',
        projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 60 } }] },
      }),
  ],
  [
    'projected serviceAccountToken no path',
    (s) => s.volumes.push({ name: 'p', projected: { sources: [{ serviceAccountToken: {} }] } }),
  ],
  [
    'downwardAPI volume bad fieldPath',
    (s) =>
      s.volumes.push({ name: 'd', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'status.podIP' } }] } }),
  ],
  [
    'downwardAPI volume labels',
    (s) =>
      s.volumes.push({
        name: 'd',
        downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'metadata.labels' } }] },
      }),
  ],
  // volumeMounts
  ['mount of an unknown volume', (s) => (c0(s).volumeMounts[0].name = 'nope')],
  ['mount without mountPath', (s) => delete c0(s).volumeMounts[0].mountPath],
  ['mount relative mountPath', (s) => (c0(s).volumeMounts[0].mountPath = 'data')],
  [
    'duplicate mountPath',
    (s) => {
      s.volumes.push({ name: 'b', emptyDir: {} });
      c0(s).volumeMounts.push({ name: 'b', mountPath: '/data' });
    },
  ],
  ['same volume mounted twice', (s) => c0(s).volumeMounts.push({ name: 'data', mountPath: '/other' })],
  ['subPath with ..', (s) => (c0(s).volumeMounts[0].subPath = '../x')],
  ['subPath absolute', (s) => (c0(s).volumeMounts[0].subPath = '/x')],
  ['subPath and subPathExpr', (s) => Object.assign(c0(s).volumeMounts[0], { subPath: 'a', subPathExpr: '$(A)' })],
  ['mountPropagation Foo', (s) => (c0(s).volumeMounts[0].mountPropagation = 'Foo')],
  ['mountPropagation Bidirectional unprivileged', (s) => (c0(s).volumeMounts[0].mountPropagation = 'Bidirectional')],
  ['volumeDevices unknown volume', (s) => (c0(s).volumeDevices = [{ name: 'nope', devicePath: '/dev/x' }])],
  // resources
  ['requests over limits', (s) => (c0(s).resources.requests.memory = '1Gi')],
  ['cpu request negative', (s) => (c0(s).resources.requests.cpu = '-1')],
  ['limit zero', (s) => (c0(s).resources.limits.cpu = '0')],
  ['resource name unknown', (s) => (c0(s).resources.limits.foo = '1')],
  ['resource name bad', (s) => (c0(s).resources.limits['Bad Name/x'] = '1')],
  [
    'extended resource fractional',
    (s) => {
      c0(s).resources.limits['example.com/gpu'] = '1.5';
    },
  ],
  ['extended resource request without limit', (s) => (c0(s).resources.requests['example.com/gpu'] = '1')],
  [
    'extended resource request differs from limit',
    (s) => {
      c0(s).resources.requests['example.com/gpu'] = '1';
      c0(s).resources.limits['example.com/gpu'] = '2';
    },
  ],
  ['extended resource in kubernetes.io', (s) => (c0(s).resources.limits['kubernetes.io/foo'] = '1')],
  ['hugepages without cpu or memory', (s) => (c0(s).resources = { limits: { 'hugepages-2Mi': '2Mi' } })],
  ['hugepages request without limit', (s) => (c0(s).resources.requests['hugepages-2Mi'] = '2Mi')],
  ['hugepages with memory', (s) => (c0(s).resources.limits['hugepages-2Mi'] = '2Mi')],
  ['hugepages bad size', (s) => (c0(s).resources.limits['hugepages-foo'] = '2Mi')],
  ['ephemeral-storage', (s) => (c0(s).resources.limits['ephemeral-storage'] = '1Gi')],
  ['memory in millis', (s) => (c0(s).resources.requests.memory = '100m')],
  ['cpu request only huge', (s) => (c0(s).resources = { requests: { cpu: '2' } })],
  ['pods resource', (s) => (c0(s).resources.limits.pods = '1')],
  // probes
  ['probe without handler', (s) => (c0(s).livenessProbe = { periodSeconds: 5 })],
  ['probe with two handlers', (s) => (c0(s).livenessProbe.tcpSocket = { port: 80 })],
  ['probe periodSeconds 0', (s) => (c0(s).livenessProbe.periodSeconds = 0)],
  ['probe periodSeconds -1', (s) => (c0(s).livenessProbe.periodSeconds = -1)],
  ['probe timeoutSeconds 0', (s) => (c0(s).livenessProbe.timeoutSeconds = 0)],
  ['probe initialDelaySeconds -1', (s) => (c0(s).livenessProbe.initialDelaySeconds = -1)],
  ['probe failureThreshold 0', (s) => (c0(s).livenessProbe.failureThreshold = 0)],
  ['probe successThreshold 0', (s) => (c0(s).readinessProbe.successThreshold = 0)],
  ['liveness successThreshold 2', (s) => (c0(s).livenessProbe.successThreshold = 2)],
  ['readiness successThreshold 2', (s) => (c0(s).readinessProbe.successThreshold = 2)],
  ['startup successThreshold 2', (s) => (c0(s).startupProbe = { exec: { command: ['true'] }, successThreshold: 2 })],
  ['probe terminationGracePeriodSeconds 0', (s) => (c0(s).livenessProbe.terminationGracePeriodSeconds = 0)],
  ['readiness terminationGracePeriodSeconds', (s) => (c0(s).readinessProbe.terminationGracePeriodSeconds = 10)],
  ['httpGet port 0', (s) => (c0(s).livenessProbe.httpGet.port = 0)],
  ['httpGet port 70000', (s) => (c0(s).livenessProbe.httpGet.port = 70000)],
  ['httpGet port name unknown', (s) => (c0(s).livenessProbe.httpGet.port = 'metrics')],
  ['httpGet port name invalid', (s) => (c0(s).livenessProbe.httpGet.port = 'HTTP_X')],
  ['httpGet port missing', (s) => delete c0(s).livenessProbe.httpGet.port],
  ['httpGet port as a numeric string', (s) => (c0(s).livenessProbe.httpGet.port = '8080')],
  ['httpGet scheme Foo', (s) => (c0(s).livenessProbe.httpGet.scheme = 'Foo')],
  ['httpGet header name bad', (s) => (c0(s).livenessProbe.httpGet.httpHeaders = [{ name: 'a b', value: 'x' }])],
  ['tcpSocket port 70000', (s) => (c0(s).readinessProbe.tcpSocket.port = 70000)],
  ['tcpSocket port name', (s) => (c0(s).readinessProbe.tcpSocket.port = 'http')],
  ['exec without command', (s) => (c0(s).readinessProbe = { exec: {} })],
  ['grpc port 0', (s) => (c0(s).readinessProbe = { grpc: { port: 0 } })],
  [
    'init container with a liveness probe',
    (s) => (s.initContainers = [{ name: 'init', image: 'x', livenessProbe: { exec: { command: ['true'] } } }]),
  ],
  [
    'init container with a readiness probe',
    (s) => (s.initContainers = [{ name: 'init', image: 'x', readinessProbe: { exec: { command: ['true'] } } }]),
  ],
  [
    'sidecar with probes',
    (s) =>
      (s.initContainers = [
        {
          name: 'side',
          image: 'x',
          restartPolicy: 'Always',
          livenessProbe: { exec: { command: ['true'] } },
          startupProbe: { exec: { command: ['true'] } },
        },
      ]),
  ],
  [
    'sidecar with a readiness probe',
    (s) =>
      (s.initContainers = [
        { name: 'side', image: 'x', restartPolicy: 'Always', readinessProbe: { exec: { command: ['true'] } } },
      ]),
  ],
  [
    'init container restartPolicy OnFailure',
    (s) => (s.initContainers = [{ name: 'init', image: 'x', restartPolicy: 'OnFailure' }]),
  ],
  ['container restartPolicy Always', (s) => (c0(s).restartPolicy = 'Always')],
  [
    'init container with lifecycle',
    (s) => (s.initContainers = [{ name: 'init', image: 'x', lifecycle: { preStop: { exec: { command: ['true'] } } } }]),
  ],
  // lifecycle
  ['postStart without handler', (s) => (c0(s).lifecycle = { postStart: {} })],
  ['preStop httpGet port 0', (s) => (c0(s).lifecycle = { preStop: { httpGet: { port: 0 } } })],
  ['preStop tcpSocket', (s) => (c0(s).lifecycle = { preStop: { tcpSocket: { port: 80 } } })],
  ['preStop two handlers', (s) => (c0(s).lifecycle = { preStop: { exec: { command: ['x'] }, httpGet: { port: 80 } } })],
  // pod-level
  ['restartPolicy Never', (s) => (s.restartPolicy = 'Never')],
  ['restartPolicy OnFailure', (s) => (s.restartPolicy = 'OnFailure')],
  ['restartPolicy unset', (s) => delete s.restartPolicy],
  ['restartPolicy Foo', (s) => (s.restartPolicy = 'Foo')],
  ['dnsPolicy Foo', (s) => (s.dnsPolicy = 'Foo')],
  ['dnsPolicy None without dnsConfig', (s) => (s.dnsPolicy = 'None')],
  ['dnsConfig four nameservers', (s) => (s.dnsConfig = { nameservers: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4'] })],
  ['dnsConfig nameserver invalid', (s) => (s.dnsConfig = { nameservers: ['nope'] })],
  ['dnsConfig option without name', (s) => (s.dnsConfig = { options: [{ value: 'x' }] })],
  ['terminationGracePeriodSeconds -1', (s) => (s.terminationGracePeriodSeconds = -1)],
  ['activeDeadlineSeconds 0', (s) => (s.activeDeadlineSeconds = 0)],
  ['activeDeadlineSeconds 10', (s) => (s.activeDeadlineSeconds = 10)],
  ['serviceAccountName Bad_Name', (s) => (s.serviceAccountName = 'Bad_Name')],
  ['serviceAccountName with a dot', (s) => (s.serviceAccountName = 'a.b')],
  ['hostname Bad_Name', (s) => (s.hostname = 'Bad_Name')],
  ['subdomain Bad_Name', (s) => (s.subdomain = 'Bad_Name')],
  ['priorityClassName Bad_Name', (s) => (s.priorityClassName = 'Bad_Name')],
  ['runtimeClassName Bad_Name', (s) => (s.runtimeClassName = 'Bad_Name')],
  ['schedulerName Bad Name', (s) => (s.schedulerName = 'Bad Name')],
  ['nodeName Bad_Name', (s) => (s.nodeName = 'Bad_Name')],
  ['preemptionPolicy Foo', (s) => (s.preemptionPolicy = 'Foo')],
  ['os name foo', (s) => (s.os = { name: 'foo' })],
  ['hostAliases ip invalid', (s) => (s.hostAliases = [{ ip: 'nope', hostnames: ['a'] }])],
  ['hostAliases hostname invalid', (s) => (s.hostAliases = [{ ip: '10.0.0.1', hostnames: ['Bad_Name'] }])],
  ['shareProcessNamespace with hostPID', (s) => Object.assign(s, { shareProcessNamespace: true, hostPID: true })],
  ['readinessGates bad conditionType', (s) => (s.readinessGates = [{ conditionType: 'bad type' }])],
  ['imagePullSecrets without name', (s) => (s.imagePullSecrets = [{}])],
  ['ephemeralContainers on create', (s) => (s.ephemeralContainers = [{ name: 'debug', image: 'busybox' }])],
  // securityContext
  ['runAsUser -1', (s) => (c0(s).securityContext.runAsUser = -1)],
  ['runAsUser 2^31', (s) => (c0(s).securityContext.runAsUser = 2147483648)],
  ['pod runAsGroup -1', (s) => (s.securityContext = { runAsGroup: -1 })],
  ['pod fsGroup -1', (s) => (s.securityContext = { fsGroup: -1 })],
  ['pod supplementalGroups -1', (s) => (s.securityContext = { supplementalGroups: [-1] })],
  ['fsGroupChangePolicy Foo', (s) => (s.securityContext = { fsGroupChangePolicy: 'Foo' })],
  ['seccomp type Foo', (s) => (c0(s).securityContext.seccompProfile = { type: 'Foo' })],
  ['seccomp Localhost without profile', (s) => (c0(s).securityContext.seccompProfile = { type: 'Localhost' })],
  [
    'seccomp RuntimeDefault with profile',
    (s) => (c0(s).securityContext.seccompProfile = { type: 'RuntimeDefault', localhostProfile: 'x' }),
  ],
  [
    'pod seccomp Localhost ok',
    (s) => (s.securityContext = { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } }),
  ],
  ['privileged without allowPrivilegeEscalation', (s) => (c0(s).securityContext.privileged = true)],
  ['CAP_SYS_ADMIN without allowPrivilegeEscalation', (s) => (c0(s).securityContext.capabilities.add = ['SYS_ADMIN'])],
  ['capability lower case', (s) => (c0(s).securityContext.capabilities.add = ['net_admin'])],
  ['procMount Foo', (s) => (c0(s).securityContext.procMount = 'Foo')],
  ['sysctl bad name', (s) => (s.securityContext = { sysctls: [{ name: 'Bad Name', value: '1' }] })],
  [
    'sysctl duplicate',
    (s) =>
      (s.securityContext = {
        sysctls: [
          { name: 'net.core.somaxconn', value: '1' },
          { name: 'net.core.somaxconn', value: '2' },
        ],
      }),
  ],
  ['appArmor Localhost without profile', (s) => (c0(s).securityContext.appArmorProfile = { type: 'Localhost' })],
  [
    'windowsOptions hostProcess without hostNetwork',
    (s) => (c0(s).securityContext.windowsOptions = { hostProcess: true }),
  ],
  // scheduling
  ['nodeSelector bad key', (s) => (s.nodeSelector = { 'bad key': 'x' })],
  ['nodeSelector bad value', (s) => (s.nodeSelector = { disk: 'bad value' })],
  ['toleration operator Foo', (s) => (s.tolerations = [{ key: 'k', operator: 'Foo', effect: 'NoSchedule' }])],
  ['toleration Exists with value', (s) => (s.tolerations = [{ key: 'k', operator: 'Exists', value: 'v' }])],
  ['toleration effect Foo', (s) => (s.tolerations = [{ key: 'k', value: 'v', effect: 'Foo' }])],
  [
    'toleration tolerationSeconds with NoSchedule',
    (s) => (s.tolerations = [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 10 }]),
  ],
  ['toleration empty key with Equal', (s) => (s.tolerations = [{ operator: 'Equal', value: 'v' }])],
  ['toleration empty key with Exists', (s) => (s.tolerations = [{ operator: 'Exists' }])],
  ['toleration bad key', (s) => (s.tolerations = [{ key: 'bad key', operator: 'Exists' }])],
  ['toleration bad value', (s) => (s.tolerations = [{ key: 'k', value: 'bad value' }])],
  [
    'nodeAffinity empty terms',
    (s) =>
      (s.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }),
  ],
  [
    'nodeAffinity operator Foo',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Foo' }] }],
          },
        },
      }),
  ],
  [
    'nodeAffinity In without values',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In' }] }],
          },
        },
      }),
  ],
  [
    'nodeAffinity Exists with values',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a'] }] }],
          },
        },
      }),
  ],
  [
    'nodeAffinity Gt two values',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1', '2'] }] }],
          },
        },
      }),
  ],
  [
    'nodeAffinity preferred weight 0',
    (s) =>
      (s.affinity = {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 0, preference: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } },
          ],
        },
      }),
  ],
  [
    'podAntiAffinity without topologyKey',
    (s) =>
      (s.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'a' } } }],
        },
      }),
  ],
  [
    'podAffinity preferred weight 101',
    (s) =>
      (s.affinity = {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 101,
              podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'a' } } },
            },
          ],
        },
      }),
  ],
  // found by the built-in differential (bench/builtin-differential.ts): synth took any namespace and namespace selector
  [
    'podAntiAffinity namespaces with a bad name',
    (s) =>
      (s.affinity = {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 1,
              podAffinityTerm: { topologyKey: 'zone', namespaces: ['ok', '10.0.0.1/8', 'Upper'] },
            },
          ],
        },
      }),
  ],
  [
    'podAffinity namespaces of 64 characters',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', namespaces: ['a'.repeat(64)] }],
        },
      }),
  ],
  [
    'podAffinity namespaceSelector bad value',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'zone', namespaceSelector: { matchLabels: { team: 'a b' } } },
          ],
        },
      }),
  ],
  [
    'podAffinity namespaceSelector bad operator',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: 'zone',
              namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Gt', values: ['1'] }] },
            },
          ],
        },
      }),
  ],
  [
    'podAffinity bad selector operator',
    (s) =>
      (s.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'zone', labelSelector: { matchExpressions: [{ key: 'app', operator: 'Foo' }] } },
          ],
        },
      }),
  ],
  [
    'topologySpread maxSkew 0',
    (s) => (s.topologySpreadConstraints = [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }]),
  ],
  [
    'topologySpread whenUnsatisfiable Foo',
    (s) => (s.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'Foo' }]),
  ],
  [
    'topologySpread topologyKey empty',
    (s) => (s.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'DoNotSchedule' }]),
  ],
  [
    'topologySpread duplicate',
    (s) =>
      (s.topologySpreadConstraints = [0, 1].map(() => ({
        maxSkew: 1,
        topologyKey: 'zone',
        whenUnsatisfiable: 'DoNotSchedule',
      }))),
  ],
  [
    'topologySpread minDomains with ScheduleAnyway',
    (s) =>
      (s.topologySpreadConstraints = [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
      ]),
  ],
  // template metadata
  ['template label bad key', (_s, t) => (t.metadata.labels['bad key'] = 'x')],
  ['template label bad value', (_s, t) => (t.metadata.labels.tier = 'bad value')],
  ['template annotation bad key', (_s, t) => (t.metadata.annotations = { 'bad key': 'x' })],
  ...POD_LEVEL_CASES,
  ...POD_EPHEMERAL_CASES,
];
