import { checksResourceClaims, podClaimNames, resourceClaimNamesIssues } from './pod-spec-claims';
import {
  arr,
  dnsLabelIssues,
  localDescendingPathIssues,
  nameIssues,
  nonNegativeIssues,
  notFound,
  obj,
  portNumOrNameIssues,
  str,
} from './pod-spec-common';
import { devicesIssues, mountOverDeviceIssues } from './pod-spec-devices';
import { envFromIssues, envIssues } from './pod-spec-env';
import { ephemeralContainersIssues } from './pod-spec-ephemeral';
import { resizePolicyIssues } from './pod-spec-resize';
import { resourcesIssues } from './pod-spec-resources';
import { containerRestartIssues, containerRestartPolicy } from './pod-spec-restart-rules';
import { containerSecurityContextIssues } from './pod-spec-security';
import { droppedImageVolumes } from './pod-spec-volumes';
import { portNameErrors, portNumberErrors } from './ports';
import { child, duplicate, forbidden, index, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * Containers and init containers (validateContainers, validateInitContainers, validateContainerCommon): names,
 * images, ports, env, mounts, resources, probes, lifecycle hooks, security contexts, restart policies.
 */

/** What a pod's containers are checked against. @internal */
export interface ContainerContext {
  readonly version: KubernetesVersion;
  /** The volumes a mount may name (those without errors). */
  readonly volumes: ReadonlyMap<string, any>;
  readonly hostNetwork: boolean;
  /**
   * A Pod, not a template: its defaults copy limits into missing requests, and its images may not have surrounding
   * whitespace (templates are not checked so, measured).
   */
  readonly pod: boolean;
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];
const HTTP_HEADER = /^[-A-Za-z0-9]+$/;
const HTTP_HEADER_MSG =
  "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for " +
  "validation is '[-A-Za-z0-9]+')";

/** What the containers of one pod share besides the ContainerContext, read from its spec. */
interface PodContext extends ContainerContext {
  /** The pod's restartPolicy, as defaulted (`Always`). */
  readonly restartPolicy: string;
  /** The names of the pod's resourceClaims. */
  readonly claims: ReadonlySet<string>;
  /** The pod's terminationGracePeriodSeconds, as defaulted (30). */
  readonly gracePeriod: number;
}

function portsIssues(path: string, ports: unknown, ctx: ContainerContext): Issue[] {
  const issues: Issue[] = [];
  const names = new Set<string>();
  arr(ports).forEach((raw, i) => {
    const p = obj(raw);
    const at = index(path, i);
    const name = str(p.name);
    if (name) {
      const msgs = portNameErrors(name);
      if (msgs.length) issues.push(...nameIssues(child(at, 'name'), name, msgs));
      else if (names.has(name)) issues.push(duplicate(child(at, 'name'), name));
      else names.add(name);
    }
    const containerPort = p.containerPort ?? 0;
    if (containerPort === 0) {
      issues.push(required(child(at, 'containerPort')));
    } else {
      issues.push(...portNumberErrors(containerPort).map((m) => invalid(child(at, 'containerPort'), containerPort, m)));
    }
    // hostNetwork defaults hostPort to containerPort
    const hostPort = p.hostPort ?? (ctx.hostNetwork ? containerPort : 0);
    if (hostPort !== 0) {
      issues.push(...portNumberErrors(hostPort).map((m) => invalid(child(at, 'hostPort'), hostPort, m)));
    }
    const protocol = p.protocol || 'TCP'; // defaulted when absent or empty (measured: `""` accepted by 1.32, 1.36)
    if (!PROTOCOLS.includes(protocol)) issues.push(notSupported(child(at, 'protocol'), protocol, PROTOCOLS));
    if (ctx.hostNetwork && hostPort !== containerPort) {
      issues.push(invalid(child(at, 'hostPort'), hostPort, 'must match `containerPort` when `hostNetwork` is true'));
    }
  });
  return issues;
}

/** validateHandler: exactly one action; `kinds` in the order upstream counts them. */
function handlerIssues(path: string, handler: any, kinds: readonly string[]): Issue[] {
  const present = kinds.filter((k) => handler[k] != null);
  if (present.length === 0) return [required(path, 'must specify a handler type')];
  const issues = present.slice(1).map((k) => forbidden(child(path, k), 'may not specify more than 1 handler type'));
  for (const kind of present.slice(0, 1)) {
    const h = obj(handler[kind]);
    const at = child(path, kind);
    if (kind === 'exec' && arr(h.command).length === 0) issues.push(required(child(at, 'command')));
    if (kind === 'httpGet') {
      issues.push(...portNumOrNameIssues(child(at, 'port'), h.port));
      // defaulted to HTTP when absent or empty
      if (h.scheme && !['HTTP', 'HTTPS'].includes(h.scheme)) {
        issues.push(notSupported(child(at, 'scheme'), h.scheme, ['HTTP', 'HTTPS']));
      }
      for (const header of arr(h.httpHeaders)) {
        const name = str(obj(header).name);
        if (!HTTP_HEADER.test(name)) issues.push(invalid(child(at, 'httpHeaders'), name, HTTP_HEADER_MSG));
      }
    }
    if (kind === 'tcpSocket') issues.push(...portNumOrNameIssues(child(at, 'port'), h.port));
    if (kind === 'grpc' && typeof h.port === 'number') {
      issues.push(...portNumberErrors(h.port).map((m) => invalid(child(at, 'port'), h.port, m)));
    }
  }
  return issues;
}

function probeIssues(path: string, raw: unknown, probe: 'liveness' | 'readiness' | 'startup'): Issue[] {
  if (raw == null) return [];
  const p = obj(raw);
  const issues = handlerIssues(path, p, ['exec', 'httpGet', 'tcpSocket', 'grpc']);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    issues.push(...nonNegativeIssues(child(path, f), p[f]));
  }
  // successThreshold defaults to 1 when 0
  if (probe !== 'readiness' && typeof p.successThreshold === 'number' && p.successThreshold > 1) {
    issues.push(invalid(child(path, 'successThreshold'), p.successThreshold, 'must be 1'));
  }
  const grace = p.terminationGracePeriodSeconds;
  if (grace != null) {
    if (probe === 'readiness') {
      issues.push(invalid(child(path, 'terminationGracePeriodSeconds'), grace, 'must not be set for readinessProbes'));
    } else if (typeof grace === 'number' && grace <= 0) {
      issues.push(invalid(child(path, 'terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
    }
  }
  return issues;
}

/**
 * validateSleepAction: a sleep within the pod's terminationGracePeriodSeconds (defaulted to 30). A field from 1.29
 * (1.28's decoding refuses it); zero allowed from 1.33 (AllowPodLifecycleSleepActionZeroValue on by default).
 * Measured: 1.32 refuses 0 in the first wording, 1.36 accepts it and refuses -1 in the second.
 */
function sleepIssues(path: string, sleep: any, ctx: PodContext): Issue[] {
  const seconds = typeof sleep.seconds === 'number' ? sleep.seconds : 0;
  const grace = ctx.gracePeriod;
  if (minorOf(ctx.version) < 29) return [];
  if (minorOf(ctx.version) >= 33) {
    return seconds < 0 || seconds > grace
      ? [invalid(path, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${grace})`)]
      : [];
  }
  return seconds <= 0 || seconds > grace
    ? [
        invalid(
          path,
          seconds,
          `must be greater than 0 and less than terminationGracePeriodSeconds (${grace}). Enable ` +
            'AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.',
        ),
      ]
    : [];
}

function lifecycleIssues(path: string, raw: unknown, ctx: PodContext): Issue[] {
  if (raw == null) return [];
  const l = obj(raw);
  return (['postStart', 'preStop'] as const).flatMap((hook) => {
    if (l[hook] == null) return [];
    const at = child(path, hook);
    const h = obj(l[hook]);
    const issues = handlerIssues(at, h, ['exec', 'httpGet', 'tcpSocket', 'sleep']);
    // the first handler is the one checked (validateHandler)
    const first = ['exec', 'httpGet', 'tcpSocket', 'sleep'].find((k) => h[k] != null);
    if (first === 'sleep') issues.push(...sleepIssues(child(at, 'sleep'), obj(h.sleep), ctx));
    return issues;
  });
}

function mountsIssues(path: string, c: any, ctx: ContainerContext): Issue[] {
  const issues: Issue[] = [];
  const mountPaths = new Set<string>();
  const privileged = obj(c.securityContext).privileged === true;
  arr(c.volumeMounts).forEach((raw, i) => {
    const m = obj(raw);
    const at = index(path, i);
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (name === '') issues.push(required(child(at, 'name')));
    if (!ctx.volumes.has(name)) issues.push(notFound(child(at, 'name'), name));
    if (mountPath === '') issues.push(required(child(at, 'mountPath')));
    if (mountPaths.has(mountPath)) issues.push(invalid(child(at, 'mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    issues.push(...mountOverDeviceIssues(at, m, c));
    // upstream reports subPath and propagation under the list's path, without the mount's index
    const subPath = str(m.subPath);
    if (subPath) issues.push(...localDescendingPathIssues(child(path, 'subPath'), subPath));
    const expr = str(m.subPathExpr);
    if (expr) {
      if (subPath) {
        issues.push(invalid(child(at, 'subPathExpr'), expr, 'subPathExpr and subPath are mutually exclusive'));
      }
      issues.push(...localDescendingPathIssues(child(path, 'subPathExpr'), expr));
    }
    if (m.mountPropagation != null) {
      if (!PROPAGATIONS.includes(m.mountPropagation)) {
        issues.push(notSupported(child(path, 'mountPropagation'), m.mountPropagation, PROPAGATIONS));
      } else if (m.mountPropagation === 'Bidirectional' && !privileged) {
        issues.push(
          forbidden(
            child(path, 'mountPropagation'),
            'Bidirectional mount propagation is available only to privileged containers',
          ),
        );
      }
    }
    issues.push(...recursiveReadOnlyIssues(path, m, ctx.version));
  });
  return issues;
}

/**
 * A mount's recursiveReadOnly (a field from 1.30: 1.28's decoding refuses it): Enabled and IfPossible need a
 * read-only mount without propagation. Upstream reports all under the list's path, without the mount's index.
 */
function recursiveReadOnlyIssues(path: string, m: any, version: KubernetesVersion): Issue[] {
  const rro = m.recursiveReadOnly;
  if (rro == null || rro === 'Disabled' || minorOf(version) < 30) return [];
  const at = child(path, 'recursiveReadOnly');
  if (!RECURSIVE_READ_ONLY.includes(rro)) return [notSupported(at, rro, RECURSIVE_READ_ONLY)];
  const issues: Issue[] = [];
  if (m.readOnly !== true) issues.push(forbidden(at, 'may only be specified when readOnly is true'));
  if (m.mountPropagation != null && m.mountPropagation !== 'None') {
    issues.push(forbidden(at, 'may only be specified when mountPropagation is None or not specified'));
  }
  return issues;
}

/** What every kind of container is checked for (validateContainerCommon). */
function commonIssues(path: string, c: any, ctx: PodContext): Issue[] {
  const issues: Issue[] = [];
  const image = str(c.image);
  if (image === '') {
    issues.push(required(child(path, 'image')));
  }
  // a Pod's own check (validateContainersOnlyForPod): templates keep accepting it, for compatibility
  else if (ctx.pod && image.trim() !== image) {
    issues.push(invalid(child(path, 'image'), image, 'must not have leading or trailing whitespace'));
  }
  // defaulted when absent or empty (Always for `:latest` or no tag, else IfNotPresent): only a value set can be wrong
  if (c.imagePullPolicy && !PULL_POLICIES.includes(c.imagePullPolicy)) {
    issues.push(notSupported(child(path, 'imagePullPolicy'), c.imagePullPolicy, PULL_POLICIES));
  }
  // defaulted to File when absent or empty
  if (c.terminationMessagePolicy && !TERMINATION_MESSAGE_POLICIES.includes(c.terminationMessagePolicy)) {
    issues.push(
      notSupported(child(path, 'terminationMessagePolicy'), c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES),
    );
  }
  issues.push(
    ...portsIssues(child(path, 'ports'), c.ports, ctx),
    ...envIssues(child(path, 'env'), c.env, ctx.version),
    ...envFromIssues(child(path, 'envFrom'), c.envFrom, ctx.version),
    ...mountsIssues(child(path, 'volumeMounts'), c, ctx),
    ...devicesIssues(child(path, 'volumeDevices'), c, ctx.volumes),
    ...resourcesIssues(child(path, 'resources'), c.resources, ctx.version, ctx.pod),
    ...(checksResourceClaims(ctx.version)
      ? resourceClaimNamesIssues(child(path, 'resources', 'claims'), obj(c.resources).claims, ctx.claims)
      : []),
    ...resizePolicyIssues(child(path, 'resizePolicy'), c.resizePolicy, ctx.restartPolicy, ctx.version),
    ...containerSecurityContextIssues(child(path, 'securityContext'), c.securityContext, ctx.version),
  );
  return issues;
}

function probesAndHooksIssues(path: string, c: any, ctx: PodContext): Issue[] {
  return [
    ...lifecycleIssues(child(path, 'lifecycle'), c.lifecycle, ctx),
    ...probeIssues(child(path, 'livenessProbe'), c.livenessProbe, 'liveness'),
    ...probeIssues(child(path, 'readinessProbe'), c.readinessProbe, 'readiness'),
    ...probeIssues(child(path, 'startupProbe'), c.startupProbe, 'startup'),
  ];
}

function nameOf(path: string, c: any, taken: Set<string>): Issue[] {
  const name = str(c.name);
  const at = child(path, 'name');
  const issues = name === '' ? [required(at)] : dnsLabelIssues(at, name);
  if (name && taken.has(name)) issues.push(duplicate(at, name));
  taken.add(name);
  return issues;
}

/** The container as the apiserver keeps it: without its mounts of the image volumes `version` drops. */
function kept(c: any, dropped: ReadonlySet<string>): any {
  if (dropped.size === 0 || !Array.isArray(c.volumeMounts)) return c;
  return { ...c, volumeMounts: c.volumeMounts.filter((m: unknown) => !dropped.has(str(obj(m).name))) };
}

/**
 * The pod's containers, init and ephemeral containers at `specPath`: names unique across the lists (an init container
 * is reported when it repeats a container's name), and what the pod's OS and HostProcess containers ask of them.
 *
 * @internal
 */
export function containersIssues(specPath: string, spec: any, ctx: ContainerContext): Issue[] {
  const pod: PodContext = {
    ...ctx,
    restartPolicy: spec.restartPolicy || 'Always',
    claims: podClaimNames(spec),
    gracePeriod: typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30,
  };
  const dropped = droppedImageVolumes(spec.volumes, ctx.version);
  const containers = arr(spec.containers);
  const issues: Issue[] = [];
  const containersPath = child(specPath, 'containers');
  if (containers.length === 0) issues.push(required(containersPath));
  const taken = new Set<string>();
  containers.forEach((raw, i) => {
    const c = kept(obj(raw), dropped);
    const at = index(containersPath, i);
    issues.push(...nameOf(at, c, taken), ...commonIssues(at, c, pod), ...probesAndHooksIssues(at, c, pod));
    issues.push(...containerRestartIssues(at, c, false, ctx.version));
  });
  const initPath = child(specPath, 'initContainers');
  arr(spec.initContainers).forEach((raw, i) => {
    const c = kept(obj(raw), dropped);
    const at = index(initPath, i);
    issues.push(...nameOf(at, c, taken), ...commonIssues(at, c, pod));
    issues.push(...containerRestartIssues(at, c, true, ctx.version));
    if (containerRestartPolicy(c, true, ctx.version) === 'Always') {
      issues.push(...probesAndHooksIssues(at, c, pod));
      return;
    }
    for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (c[f] != null) {
        issues.push(forbidden(child(at, f), 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  const ephemeral = arr(spec.ephemeralContainers).map((c) => kept(obj(c), dropped));
  issues.push(
    // their names' uniqueness and their images' whitespace are pod-spec-ephemeral's; no Pod defaults for them
    ...ephemeralContainersIssues(specPath, { ...spec, ephemeralContainers: ephemeral }, ctx.version, (at, c) => [
      ...nameOf(at, c, new Set()),
      ...commonIssues(at, c, { ...pod, pod: false }),
    ]),
  );
  return issues;
}

/** checkHostPortConflicts over the regular containers: `protocol/hostIP/hostPort` once. @internal */
export function hostPortConflicts(specPath: string, spec: any): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  arr(spec.containers).forEach((c, ci) =>
    arr(obj(c).ports).forEach((raw, pi) => {
      const p = obj(raw);
      const hostPort = p.hostPort ?? (spec.hostNetwork === true ? p.containerPort : 0);
      if (!hostPort) return;
      const k = `${p.protocol || 'TCP'}/${str(p.hostIP)}/${hostPort}`;
      if (seen.has(k)) {
        issues.push(
          duplicate(child(index(child(index(child(specPath, 'containers'), ci), 'ports'), pi), 'hostPort'), k),
        );
      }
      seen.add(k);
    }),
  );
  return issues;
}
