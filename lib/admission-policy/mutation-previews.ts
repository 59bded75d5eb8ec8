import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { MutatingAdmissionPolicyBinding } from './mutating-admission-policy-binding';
import { errorsOf, formatIssue } from '../apimachinery/issue';
import { KubernetesVersion } from '../apimachinery/kubernetes-versions';
import { MutatingAdmissionPolicyManifest } from '../apiserver/admission-policy';
import { ChainLink, linkName, previewChain, runLink } from '../apiserver/admission-policy/preview/preview-chain';
import {
  BindingForPreview,
  MutationPreview,
  MutationTarget,
  previewMutations,
  previewThroughBinding,
} from '../apiserver/admission-policy/preview/preview-mutations';
import { CustomResourceDefinitionVersion, validateCustomResource } from '../apiserver/value-validation/custom-resource';
import { applyDefaults } from '../apiserver/value-validation/value-defaults';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';

/** What one mutating policy does to one example custom resource of the app on create. */
export interface MutationPreviewOfObject {
  /** `<kind> <namespace>/<name>` and the construct path of the object. */
  readonly object: string;
  /** The changes, one a line: `+ .spec.replicas: 2`, `~ .spec.image: "a" → "b"`, `- .spec.x`. */
  readonly changes: readonly string[];
  /** What makes the create fail (refused by the apiserver, or an object it refuses): synth fails. */
  readonly errors: readonly string[];
  /** What the preview shows but does not refuse (fields the apiserver drops, errors under `failurePolicy: Ignore`). */
  readonly warnings: readonly string[];
  /** Why the outcome cannot be known at synth (it depends on the cluster). */
  readonly undecided?: string;
  /**
   * What the preview assumes of the cluster: the object's Namespace when the app does not emit it (a namespace
   * with no labels but `kubernetes.io/metadata.name` and no annotations).
   */
  readonly assumes?: string;
}

/** The marker `CustomResource` sets (a peer module: read by duck typing, as across copies of the library). */
const CUSTOM_RESOURCE_MARKER = Symbol.for('cdk8s-operator.CustomResource');

interface CustomResourceLike extends IConstruct {
  readonly definition: ICustomResourceDefinition;
  readonly version: string;
  toJson(): Record<string, unknown>;
}

/**
 * The policy's mutations previewed on every custom resource of the app it matches (created as written, defaults
 * applied by the apiserver first), through each of the app's bindings of it (their matchResources, and the app's
 * objects their paramRef selects as `params`; as bound once when the app has none): the changes, and the errors (the mutation fails, the mutated object is invalid
 * against its CRD, or, with `reinvocationPolicy: IfNeeded`, a second run changes it again).
 *
 * @internal
 */
export function previewOnAppObjects(
  scope: IConstruct,
  manifest: MutatingAdmissionPolicyManifest,
  version: KubernetesVersion,
): MutationPreviewOfObject[] {
  const out: MutationPreviewOfObject[] = [];
  const all = scope.node.root.node.findAll();
  // the app's bindings of this policy (none: previewed as bound once, with no matchResources and params unknown)
  const appBindings = all
    .filter((c): c is MutatingAdmissionPolicyBinding => c instanceof MutatingAdmissionPolicyBinding)
    .map((b) => ({ name: b.name, ...b.toManifest().spec }));
  const bindingsOf = (policy: string | undefined): Array<BindingForPreview | undefined> => {
    const found: Array<BindingForPreview | undefined> = appBindings.filter((b) => b.policyName === policy);
    return found.length > 0 ? found : [undefined];
  };
  const bindings = bindingsOf(manifest.metadata.name);
  const paramKinds = new Set<string>();
  const candidatesOf = (policies: readonly MutatingAdmissionPolicyManifest[]) => {
    for (const p of policies) if (p.spec.paramKind?.kind) paramKinds.add(p.spec.paramKind.kind);
    return all
      .filter((c): c is ApiObject => ApiObject.isApiObject(c) && paramKinds.has(c.kind))
      .map((c) => c.toJson() as Record<string, unknown>);
  };
  const candidates = candidatesOf([manifest]);
  const run = (binding: BindingForPreview | undefined, target: MutationTarget): MutationPreview =>
    binding
      ? previewThroughBinding(manifest, target, version, binding, candidates)
      : previewMutations(manifest, target, version);
  // every policy of the app through each of its bindings: the links a chain of several matching one object runs
  const links: ChainLink[] = all
    .filter((c): c is ApiObject => ApiObject.isApiObject(c) && c.kind === 'MutatingAdmissionPolicy')
    .map((c) => c.toJson() as MutatingAdmissionPolicyManifest)
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
    .flatMap((policy) => bindingsOf(policy.metadata.name).map((binding) => ({ policy, binding })));
  const chainCandidates = links.length > 1 ? candidatesOf(links.map((l) => l.policy)) : [];
  for (const cr of all.filter(isCustomResource)) {
    for (const binding of bindings) {
      const p = previewOne(manifest, version, cr, binding, bindings.length > 1, run);
      if (p) out.push(p);
    }
    const chain = links.length > 1 ? previewChainOn(manifest, version, cr, links, chainCandidates) : undefined;
    if (chain) out.push(chain);
  }
  return out;
}

/**
 * The chain of the app's policies and bindings that match `cr` together (two or more), reported by the first of
 * them (by policy name) only: the object after all of them, as the apiserver runs them one after the other with
 * reinvocation (`previewChain`); an error when the result depends on their order, which the apiserver does not fix,
 * or when the chained object is invalid against its CRD.
 */
function previewChainOn(
  manifest: MutatingAdmissionPolicyManifest,
  version: KubernetesVersion,
  cr: CustomResourceLike,
  links: readonly ChainLink[],
  candidates: readonly Record<string, unknown>[],
): MutationPreviewOfObject | undefined {
  const found = targetOf(cr);
  if (!found) return undefined;
  const namespace = namespaceOf(cr, found.object);
  const target = { ...found.object, namespace: namespace?.object, namespaceAssumed: namespace?.assumed };
  const alone = links.map((l) => runLink(l, target, version, candidates).outcome);
  const matching = links.filter((_, i) => alone[i] !== 'not-matched');
  if (matching.length < 2 || matching[0].policy.metadata.name !== manifest.metadata.name) return undefined;
  // a link the cluster decides is shown as not previewed on its own; the chain through it is not shown
  if (alone.includes('undecided')) return undefined;
  const shown = `${describeObject(cr, target)} chained: ${matching.map(linkName).join(', ')}`;
  const chain = previewChain(matching, target, version, candidates);
  if (chain.outcome === 'undecided') {
    return { object: shown, changes: [], errors: [], warnings: [], undecided: chain.reason };
  }
  // a link that refuses the create: its own preview reports it
  if (chain.outcome === 'refused') return undefined;
  const errors: string[] = [];
  if (chain.results.length > 1) {
    const each = chain.results.map(
      (r) => `${r.order.join(' then ')}: ${diffObjects(target.object, r.object).join('; ')}`,
    );
    errors.push(
      `the stored object depends on the order the apiserver runs them in, which it does not fix (${each.join(' | ')})`,
    );
  }
  for (const r of chain.results) {
    const invalid = errorsOf(
      validateCustomResource(found.definition, r.object, { kubernetesVersion: version }).issues,
    ).filter((i) => i.hint !== 'the apiserver would drop it');
    errors.push(...invalid.map((i) => `the chained object is invalid, the apiserver refuses it: ${formatIssue(i)}`));
  }
  return {
    object: shown,
    changes: diffObjects(target.object, chain.results[0].object),
    errors: [...new Set(errors)],
    warnings: [],
  };
}

/** `<kind> <namespace>/<name> (<construct path>)`. */
function describeObject(cr: CustomResourceLike, target: MutationTarget): string {
  const meta = (target.object.metadata ?? {}) as { name?: string; namespace?: string };
  return `${target.kind} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? ''} (${cr.node.path})`;
}

/** The preview of one custom resource through one binding (undefined when the policy does not match it). */
function previewOne(
  manifest: MutatingAdmissionPolicyManifest,
  version: KubernetesVersion,
  cr: CustomResourceLike,
  binding: BindingForPreview | undefined,
  nameBinding: boolean,
  run: (binding: BindingForPreview | undefined, target: MutationTarget) => MutationPreview,
): MutationPreviewOfObject | undefined {
  const target = targetOf(cr);
  if (!target) return undefined;
  const { object, definition } = target;
  const meta = (object.object.metadata ?? {}) as { name?: string; namespace?: string };
  const through = nameBinding && binding ? ` through binding ${binding.name}` : '';
  const shown = `${describeObject(cr, object)}${through}`;
  const namespace = namespaceOf(cr, object);
  const first = run(binding, { ...object, namespace: namespace?.object, namespaceAssumed: namespace?.assumed });
  if (first.outcome === 'not-matched') return undefined;
  const readsNamespace = /\bnamespaceObject\b/.test(JSON.stringify(manifest.spec));
  const assumes =
    namespace?.assumed && readsNamespace
      ? {
          assumes: `namespace ${meta.namespace ?? 'default'} has no labels but kubernetes.io/metadata.name and no annotations (the app does not emit it)`,
        }
      : {};
  if (first.outcome === 'undecided') {
    return { object: shown, changes: [], errors: [], warnings: [], undecided: first.reason };
  }
  const failed = first.errors.map((e) => `${e.path}: ${e.message}`);
  const fail = (manifest.spec.failurePolicy ?? 'Fail') === 'Fail';
  const errors = fail ? failed.map((e) => `the apiserver refuses the create: ${e}`) : [];
  const warnings = [
    ...(fail ? [] : failed.map((e) => `the policy is skipped (failurePolicy: Ignore): ${e}`)),
    ...first.dropped.map((p) => `a mutation sets ${p}, which the schema does not declare: the apiserver drops it`),
  ];
  if (first.errors.length === 0) {
    const invalid = errorsOf(
      validateCustomResource(definition, first.object, { kubernetesVersion: version }).issues,
    ).filter((i) => i.hint !== 'the apiserver would drop it');
    errors.push(...invalid.map((i) => `the mutated object is invalid, the apiserver refuses it: ${formatIssue(i)}`));
    if (manifest.spec.reinvocationPolicy === 'IfNeeded') {
      const again = run(binding, {
        ...object,
        object: first.object,
        namespace: namespace?.object,
        namespaceAssumed: namespace?.assumed,
      });
      if (again.outcome === 'mutated') {
        const changed = diffObjects(first.object, again.object);
        if (changed.length > 0) {
          errors.push(
            `not idempotent under reinvocation (reinvocationPolicy: IfNeeded): a second run changes ${changed.join('; ')}`,
          );
        }
      }
    }
  }
  return { object: shown, changes: diffObjects(object.object, first.object), errors, warnings, ...assumes };
}

/**
 * The Namespace a namespaced object is created in: the app's own Namespace object of that name, else a bare
 * namespace as the apiserver creates it (the name label only), marked as assumed.
 */
function namespaceOf(
  scope: IConstruct,
  target: MutationTarget,
): { readonly object: Record<string, unknown>; readonly assumed: boolean } | undefined {
  if (!target.namespaced) return undefined;
  const name = ((target.object.metadata ?? {}) as { namespace?: string }).namespace ?? 'default';
  for (const c of scope.node.root.node.findAll()) {
    if (!ApiObject.isApiObject(c) || c.kind !== 'Namespace' || c.apiVersion !== 'v1' || c.name !== name) continue;
    const json = c.toJson() as { metadata?: { labels?: Record<string, string> } };
    // the apiserver adds the name label to every namespace
    const labels = { ...(json.metadata?.labels ?? {}), 'kubernetes.io/metadata.name': name };
    return { object: { ...json, metadata: { ...json.metadata, labels } }, assumed: false };
  }
  return {
    object: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
    },
    assumed: true,
  };
}

function isCustomResource(c: IConstruct): c is CustomResourceLike {
  return (c as unknown as Record<symbol, unknown>)[CUSTOM_RESOURCE_MARKER] === true;
}

/** The object as it reaches mutating admission (defaults applied), with what the preview needs of its CRD. */
function targetOf(
  cr: CustomResourceLike,
): { readonly object: MutationTarget; readonly definition: CustomResourceDefinitionVersion } | undefined {
  let definition: ICustomResourceDefinition;
  try {
    definition = cr.definition;
  } catch {
    return undefined; // the custom resource reports its missing definition itself
  }
  const crd = definition.toManifest();
  const version = crd.spec.versions.find((v) => v.name === cr.version);
  const schema = version?.schema?.openAPIV3Schema;
  if (!version || !schema) return undefined;
  return {
    object: {
      object: applyDefaults(schema, cr.toJson()) as Record<string, unknown>,
      schema,
      resource: { group: crd.spec.group, version: version.name, resource: crd.spec.names.plural },
      kind: crd.spec.names.kind,
      namespaced: crd.spec.scope === 'Namespaced',
    },
    definition: { scope: crd.spec.scope, kind: crd.spec.names.kind, version },
  };
}

/** The differences from `before` to `after`, one per changed leaf (lists compared whole), in JSON path form. */
export function diffObjects(before: unknown, after: unknown, at = ''): string[] {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => {
      if (!(k in after)) return [`- ${at}.${k}`];
      if (!(k in before)) return [`+ ${at}.${k}: ${JSON.stringify(after[k])}`];
      return diffObjects(before[k], after[k], `${at}.${k}`);
    });
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [`~ ${at}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`];
}
