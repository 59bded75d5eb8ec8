/**
 * The objects a Prometheus or an Alertmanager object owns, as prometheus-operator lays them out:
 * a StatefulSet `prometheus-<name>` / `alertmanager-<name>` and a Service of the same name; for a
 * Prometheus also its configuration Secret `prometheus-<name>` (key `prometheus.yaml`) and the rule
 * files ConfigMap `prometheus-<name>-rulefiles-0`. Every one carries a controller ownerReference, so
 * deleting the owner lets the garbage collector remove them all.
 *
 * Reloading: the Prometheus and Alertmanager pods run a `config-reloader` sidecar (reloader.ts, in
 * this operator's image) that watches the mounted files and POSTs `/-/reload` when the kubelet has
 * written new content; a configuration change never changes the pod template, so pods are not restarted.
 */
import { DiscoveryMode } from './promcfg';
import { Alertmanager, InNamespace, MANAGED_BY, names, PATHS, Prometheus, ResourceRequirements } from './types';
import { controllerReference, KubeObject } from '../../runtime';

/** Default images (what ../shared/k8s/node/build-images.sh builds from Debian's packages). */
export const DEFAULT_PROMETHEUS_IMAGE = 'quay.io/prometheus/prometheus';
export const DEFAULT_PROMETHEUS_VERSION = 'v2.42.0';
export const DEFAULT_ALERTMANAGER_IMAGE = 'quay.io/prometheus/alertmanager';
export const DEFAULT_ALERTMANAGER_VERSION = 'v0.25.0';
export const PROMETHEUS_PORT = 9090;
export const ALERTMANAGER_PORT = 9093;

/** What the children need beyond the owner. */
export interface ChildOptions {
  /** The image of the config-reloader sidecar (this operator's image, which holds reloader.js). */
  readonly reloaderImage: string;
  /** How Prometheus discovers targets (promcfg.ts). @default 'kubernetes' */
  readonly discovery?: DiscoveryMode;
}

function restricted(uid: number): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    runAsUser: uid,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

function meta(
  owner: KubeObject & { metadata: { name: string; namespace: string } },
  name: string,
  labels: Record<string, string>,
): Record<string, unknown> {
  return { name, namespace: owner.metadata.namespace, labels, ownerReferences: [controllerReference(owner)] };
}

function reloader(
  options: ChildOptions,
  dirs: readonly string[],
  reloadUrl: string,
  mounts: readonly Record<string, unknown>[],
): Record<string, unknown> {
  return {
    name: 'config-reloader',
    image: options.reloaderImage,
    imagePullPolicy: 'IfNotPresent',
    command: ['/nodejs/bin/node', '/app/reloader.js'],
    args: [...dirs.map((d) => `--watch-dir=${d}`), `--reload-url=${reloadUrl}`],
    volumeMounts: mounts.map((m) => ({ ...m, readOnly: true })),
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } },
    securityContext: restricted(65532),
  };
}

function resources(r: ResourceRequirements | undefined): Record<string, unknown> {
  return r
    ? {
        resources: {
          ...(r.requests ? { requests: { ...r.requests } } : {}),
          ...(r.limits ? { limits: { ...r.limits } } : {}),
        },
      }
    : {};
}

/** Labels of a Prometheus object's pods (upstream's names). */
export function prometheusLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'prometheus',
    'app.kubernetes.io/instance': name,
    prometheus: name,
    ...MANAGED_BY,
  };
}

/** Labels of an Alertmanager object's pods. */
export function alertmanagerLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'alertmanager',
    'app.kubernetes.io/instance': name,
    alertmanager: name,
    ...MANAGED_BY,
  };
}

/** The configuration Secret. */
export function prometheusConfigSecret(p: InNamespace<Prometheus>, config: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(p, names.prometheusConfigSecret(p.metadata.name), prometheusLabels(p.metadata.name)),
    type: 'Opaque',
    data: { [PATHS.configFile]: Buffer.from(config).toString('base64') },
  };
}

/** The rule files ConfigMap. */
export function prometheusRulesConfigMap(p: InNamespace<Prometheus>, files: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(p, names.prometheusRulesConfigMap(p.metadata.name), prometheusLabels(p.metadata.name)),
    data: files,
  };
}

/** The targets ConfigMap of file discovery (discovery.ts), re-read by Prometheus itself: not watched by the reloader. */
export function prometheusTargetsConfigMap(p: InNamespace<Prometheus>, files: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(p, names.prometheusTargetsConfigMap(p.metadata.name), prometheusLabels(p.metadata.name)),
    data: files,
  };
}

/** The Service in front of the Prometheus pods (port `web`). */
export function prometheusService(p: InNamespace<Prometheus>): KubeObject {
  return webService(p, names.prometheusService(p.metadata.name), prometheusLabels(p.metadata.name), PROMETHEUS_PORT);
}

/** A Service selecting the pods of `labels`, serving their `web` port as `port`, owned by `owner`. */
function webService(
  owner: InNamespace<Prometheus> | InNamespace<Alertmanager>,
  name: string,
  labels: Record<string, string>,
  port: number,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(owner, name, labels),
    spec: { selector: labels, ports: [{ name: 'web', port, targetPort: 'web', protocol: 'TCP' }] },
  };
}

/** The Prometheus StatefulSet. */
export function prometheusStatefulSet(p: InNamespace<Prometheus>, options: ChildOptions): KubeObject {
  const name = p.metadata.name;
  const labels = prometheusLabels(name);
  const rulesDir = `${PATHS.rulesDir}/${names.prometheusRulesConfigMap(name)}`;
  const mounts = [
    { name: 'config', mountPath: PATHS.configDir },
    { name: 'rules', mountPath: rulesDir },
  ];
  const image = p.spec.image ?? `${DEFAULT_PROMETHEUS_IMAGE}:${p.spec.version ?? DEFAULT_PROMETHEUS_VERSION}`;
  const fileDiscovery = options.discovery === 'file';
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(p, names.prometheusStatefulSet(name), labels),
    spec: {
      replicas: p.spec.replicas ?? 1,
      serviceName: names.prometheusService(name),
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...(p.spec.serviceAccountName ? { serviceAccountName: p.spec.serviceAccountName } : {}),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65534,
            fsGroup: 65534,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'prometheus',
              image,
              imagePullPolicy: 'IfNotPresent',
              args: [
                `--config.file=${PATHS.configDir}/${PATHS.configFile}`,
                '--storage.tsdb.path=/prometheus',
                `--storage.tsdb.retention.time=${p.spec.retention ?? '24h'}`,
                '--web.enable-lifecycle',
                '--web.route-prefix=/',
              ],
              ports: [{ name: 'web', containerPort: PROMETHEUS_PORT, protocol: 'TCP' }],
              readinessProbe: { httpGet: { path: '/-/ready', port: 'web' }, periodSeconds: 5, failureThreshold: 3 },
              volumeMounts: [
                ...mounts.map((m) => ({ ...m, readOnly: true })),
                ...(fileDiscovery ? [{ name: 'targets', mountPath: PATHS.targetsDir, readOnly: true }] : []),
                { name: 'data', mountPath: '/prometheus' },
              ],
              ...resources(p.spec.resources),
              securityContext: restricted(65534),
            },
            reloader(
              options,
              mounts.map((m) => m.mountPath),
              `http://127.0.0.1:${PROMETHEUS_PORT}/-/reload`,
              mounts,
            ),
          ],
          volumes: [
            { name: 'config', secret: { secretName: names.prometheusConfigSecret(name) } },
            { name: 'rules', configMap: { name: names.prometheusRulesConfigMap(name) } },
            ...(fileDiscovery
              ? [{ name: 'targets', configMap: { name: names.prometheusTargetsConfigMap(name) } }]
              : []),
            { name: 'data', emptyDir: {} },
          ],
        },
      },
    },
  };
}

/** The Service in front of the Alertmanager pods (port `web`). */
export function alertmanagerService(am: InNamespace<Alertmanager>): KubeObject {
  return webService(
    am,
    names.alertmanagerService(am.metadata.name),
    alertmanagerLabels(am.metadata.name),
    ALERTMANAGER_PORT,
  );
}

/** The Alertmanager StatefulSet: its configuration is the user's Secret, mounted as is (the operator never reads it). */
export function alertmanagerStatefulSet(am: InNamespace<Alertmanager>, options: ChildOptions): KubeObject {
  const name = am.metadata.name;
  const labels = alertmanagerLabels(name);
  const configDir = '/etc/alertmanager/config';
  const mounts = [{ name: 'config', mountPath: configDir }];
  const image = am.spec.image ?? `${DEFAULT_ALERTMANAGER_IMAGE}:${am.spec.version ?? DEFAULT_ALERTMANAGER_VERSION}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(am, names.alertmanagerStatefulSet(name), labels),
    spec: {
      replicas: am.spec.replicas ?? 1,
      serviceName: names.alertmanagerService(name),
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65534,
            fsGroup: 65534,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'alertmanager',
              image,
              imagePullPolicy: 'IfNotPresent',
              args: [
                `--config.file=${configDir}/alertmanager.yaml`,
                '--storage.path=/alertmanager',
                '--web.route-prefix=/',
                // One replica needs no gossip; more find each other through the Service's pod DNS names.
                ...((am.spec.replicas ?? 1) > 1
                  ? Array.from(
                      { length: am.spec.replicas ?? 1 },
                      (_, i) =>
                        `--cluster.peer=${names.alertmanagerStatefulSet(name)}-${i}.${names.alertmanagerService(name)}:9094`,
                    )
                  : ['--cluster.listen-address=']),
              ],
              ports: [{ name: 'web', containerPort: ALERTMANAGER_PORT, protocol: 'TCP' }],
              readinessProbe: { httpGet: { path: '/-/ready', port: 'web' }, periodSeconds: 5, failureThreshold: 3 },
              volumeMounts: [
                ...mounts.map((m) => ({ ...m, readOnly: true })),
                { name: 'data', mountPath: '/alertmanager' },
              ],
              ...resources(am.spec.resources),
              securityContext: restricted(65534),
            },
            reloader(options, [configDir], `http://127.0.0.1:${ALERTMANAGER_PORT}/-/reload`, mounts),
          ],
          volumes: [
            { name: 'config', secret: { secretName: am.spec.configSecret ?? names.alertmanagerConfigSecret(name) } },
            { name: 'data', emptyDir: {} },
          ],
        },
      },
    },
  };
}
