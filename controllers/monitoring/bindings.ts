/**
 * The `status.bindings` of ServiceMonitors and PrometheusRules (upstream's `WorkloadBinding`): each
 * Prometheus that selects one records whether it `Accepted` it. A rejected object (a field outside the
 * supported subset, an invalid selector) is left out of the configuration and says why here.
 */
import { ConfigResourceStatus, GROUP, InNamespace, Prometheus, WorkloadBinding } from './types';
import { KubeClient, KubeObject, updateStatus } from '../../runtime';

/** Accepted, or rejected with a reason and message. */
export interface Verdict {
  readonly accepted: boolean;
  readonly reason: string;
  readonly message: string;
}

/** Now as a `metav1.Time` (RFC 3339, seconds). */
function metaTimeNow(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function isBindingOf(b: WorkloadBinding, p: InNamespace<Prometheus>): boolean {
  return (
    b.group === GROUP &&
    b.resource === 'prometheuses' &&
    b.name === p.metadata.name &&
    b.namespace === p.metadata.namespace
  );
}

/** The bindings with this Prometheus' entry set to `verdict` (or removed when undefined). */
export function withBinding(
  status: ConfigResourceStatus | undefined,
  p: InNamespace<Prometheus>,
  generation: number | undefined,
  verdict: Verdict | undefined,
): WorkloadBinding[] {
  const others = (status?.bindings ?? []).filter((b) => !isBindingOf(b, p));
  if (!verdict) return others;
  const previous = (status?.bindings ?? [])
    .find((b) => isBindingOf(b, p))
    ?.conditions?.find((c) => c.type === 'Accepted');
  const state: 'True' | 'False' = verdict.accepted ? 'True' : 'False';
  const unchanged =
    previous &&
    previous.status === state &&
    previous.reason === verdict.reason &&
    previous.message === verdict.message &&
    previous.observedGeneration === generation;
  const condition = unchanged
    ? previous
    : {
        type: 'Accepted',
        status: state,
        reason: verdict.reason,
        message: verdict.message,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
        lastTransitionTime: previous && previous.status === state ? previous.lastTransitionTime : metaTimeNow(),
      };
  return [
    ...others,
    {
      group: GROUP,
      resource: 'prometheuses',
      name: p.metadata.name,
      namespace: p.metadata.namespace,
      conditions: [condition],
    },
  ];
}

/** Writes the binding of `p` on `obj` when it differs (no request otherwise). */
export async function recordBinding(
  client: KubeClient,
  obj: KubeObject & { status?: ConfigResourceStatus },
  p: InNamespace<Prometheus>,
  verdict: Verdict | undefined,
  fieldManager: string,
): Promise<void> {
  const bindings = withBinding(obj.status, p, obj.metadata?.generation, verdict);
  const current = obj.status?.bindings ?? [];
  if (JSON.stringify(bindings) === JSON.stringify(current)) return;
  await updateStatus(client, obj, { ...(obj.status ?? {}), bindings }, { fieldManager });
}
