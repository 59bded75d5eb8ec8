import { errorsOf, formatIssue } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { ControlPlane } from '../../envtest';

/** What a real apiserver answered to a dry-run create of a built-in object. */
export interface ServerVerdict {
  readonly accepted: boolean;
  readonly code: number;
  /** The Status message (empty when accepted). */
  readonly message: string;
  /** The Status causes' fields (`spec.ports[0].port`), in the server's order. */
  readonly fields: readonly string[];
}

/** What synth says of the same object on the same version. */
export interface OurVerdict {
  readonly accepted: boolean;
  readonly fields: readonly string[];
  /** The errors as synth prints them. */
  readonly lines: readonly string[];
}

/**
 * Creates `object` on `plane` with `dryRun=All` and strict field validation, as `kubectl apply` sends it (kubectl's
 * `--validate=strict`, its default since 1.27): nothing is stored. Namespaced kinds go to `namespace`. The resource
 * is found by discovery (so kinds of any served version work), cached per plane.
 */
export async function dryRunCreate(plane: ControlPlane, object: any, namespace = 'default'): Promise<ServerVerdict> {
  const resource = await resourceOf(plane, object.apiVersion, object.kind);
  const base = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const path = resource.namespaced ? `${base}/namespaces/${namespace}/${resource.name}` : `${base}/${resource.name}`;
  const r = await plane.request('POST', `${path}?dryRun=All&fieldValidation=Strict`, object);
  const accepted = r.code >= 200 && r.code < 300;
  const causes: any[] = accepted ? [] : (r.body?.details?.causes ?? []);
  return {
    accepted,
    code: r.code,
    message: accepted ? '' : String(r.body?.message ?? r.body),
    fields: causes.map((c) => c.field).filter((f): f is string => typeof f === 'string'),
  };
}

/** Our verdict on `object` for `version`: accepted when synth finds no error. */
export function ourVerdict(object: any, version: KubernetesVersion): OurVerdict {
  const errors = errorsOf(builtinObjectIssues(object, version));
  return { accepted: errors.length === 0, fields: errors.map((i) => i.path), lines: errors.map((i) => formatIssue(i)) };
}

const resources = new WeakMap<ControlPlane, Map<string, { name: string; namespaced: boolean }>>();

async function resourceOf(
  plane: ControlPlane,
  apiVersion: string,
  kind: string,
): Promise<{ name: string; namespaced: boolean }> {
  const cache = resources.get(plane) ?? resources.set(plane, new Map()).get(plane)!;
  const key = `${apiVersion}/${kind}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const r = await plane.request('GET', apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
  if (r.code !== 200) throw new Error(`${apiVersion} is not served by this apiserver (${r.code})`);
  const found = (r.body.resources as any[]).find((x) => x.kind === kind && !String(x.name).includes('/'));
  if (!found) throw new Error(`${apiVersion} has no kind ${kind} on this apiserver`);
  const resource = { name: found.name as string, namespaced: found.namespaced as boolean };
  cache.set(key, resource);
  return resource;
}
