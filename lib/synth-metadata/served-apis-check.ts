import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { isEmittedWhereServed } from './conditional-objects';
import { perVersionIssues, targetVersions } from './target-versions';
import { Warnings } from './warnings';
import { KubernetesVersion } from '../apimachinery/kubernetes-versions';
import { neverServed, servedBy, servedFrom, servedRange } from '../apimachinery/served-apis';
import { fieldsUnknownTo, gatedFieldsSet, gatedFieldVerdict } from '../apiserver/admission-policy/builtin-fields';
import { builtinObjectIssues } from '../apiserver/builtin-validation';
import { constructChecked, withoutConstructChecked } from '../apiserver/builtin-validation/admission-construct-checked';

/** An object emitted only where the cluster serves its API: from `requires` on. @internal */
export interface ConditionalObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly path: string;
  readonly requires: KubernetesVersion;
}

/** `apiVersion/kind/namespace/name`: how an emitted manifest is matched with its construct. @internal */
export function objectKey(o: {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}): string {
  return `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/**
 * Every object of the app against the API versions each version of its Kubernetes range serves: an object whose
 * API an older version lacks is an error naming the construct path and the versions, unless its construct is
 * emitted where served (then it is conditional, from the first version that serves it). Nothing outside an
 * `OperatorApp` range.
 *
 * @internal
 */
export function checkServedApis(
  app: IConstruct,
  conditionalAllowed: boolean,
): { problems: string[]; conditional: ConditionalObject[] } {
  const versions = targetVersions(app);
  const problems: string[] = [];
  const conditional: ConditionalObject[] = [];
  if (!versions) return { problems, conditional };
  for (const c of app.node.findAll()) {
    if (!(c instanceof ApiObject)) continue;
    const failing = versions.filter((v) => !servedBy(c.apiVersion, c.kind, v));
    if (failing.length === 0) {
      if (c.kind !== 'CustomResourceDefinition') problems.push(...builtinFieldProblems(c, versions)); // a CRD's fields: checkCrdForVersions
      continue;
    }
    const from = servedFrom(c.apiVersion, c.kind, versions);
    if (from && isEmittedWhereServed(c)) {
      if (!conditionalAllowed) {
        problems.push(
          `[${c.node.path}] ${c.apiVersion} ${c.kind} needs Kubernetes ${from} or newer and is to be emitted only where served, ` +
            'which needs layout: OutputLayout.APPLY_ORDER (its own file, applied where the cluster serves it)',
        );
        continue;
      }
      conditional.push({
        apiVersion: c.apiVersion,
        kind: c.kind,
        name: c.name,
        namespace: c.metadata.namespace,
        path: c.node.path,
        requires: from,
      });
      continue;
    }
    const removed = neverServed(c.apiVersion, c.kind);
    if (removed) {
      // a built-in API version no supported version serves: no range helps, its replacement does
      problems.push(
        `[${c.node.path}] ${c.apiVersion} ${c.kind} is served by no Kubernetes version of the range: ${removed}`,
      );
      continue;
    }
    problems.push(
      `[${c.node.path}] ${c.apiVersion} ${c.kind} fails on Kubernetes ${failing.join(', ')}: not served there (${servedRange(c.apiVersion, c.kind)}); ` +
        `target newer versions (OperatorApp kubernetesVersions${from ? `: { min: '${from}' }` : ''})${from ? ', or emit it only where served if the construct allows it' : ''}`,
    );
  }
  return { problems, conditional };
}

/**
 * What the apiserver of each version of the range refuses of a built-in object (`builtinObjectIssues`: its strict
 * decoding, unknown fields a version lacks included, then its validation) and the gated fields it drops: it is
 * serialized once, and its fields looked up once per version for the gated fields.
 */
function builtinFieldProblems(c: ApiObject, versions: readonly KubernetesVersion[]): string[] {
  const json = c.toJson();
  const unknown = new Map(versions.map((v) => [v, fieldsUnknownTo(json, v)]));
  // what the construct emitting it reports itself (the policy constructs, the operator's webhooks) is printed once
  const checked = constructChecked(c);
  const issues = (v: KubernetesVersion) =>
    checked ? withoutConstructChecked(builtinObjectIssues(json, v), json, v, checked) : builtinObjectIssues(json, v);
  return [
    ...perVersionIssues(versions, issues).map(
      (m) => `[${c.node.path}] ${c.apiVersion} ${c.kind} ${json.metadata?.name ?? ''}: ${m}`,
    ),
    ...gatedFields(c, json, versions, unknown),
  ];
}

/**
 * Fields of a built-in object that a version of the range knows but drops on create while a feature gate is off by
 * default there: the object is accepted and the field silently lost. Measured on 1.28, 1.32 and 1.36 (errors); a
 * version between them whose measured neighbour drops the field may drop it too (a warning: not measured).
 */
function gatedFields(
  c: ApiObject,
  json: any,
  versions: readonly KubernetesVersion[],
  unknown: ReadonlyMap<KubernetesVersion, readonly string[]>,
): string[] {
  const problems: string[] = [];
  for (const g of gatedFieldsSet(json)) {
    const known = versions.filter(
      (v) => !unknown.get(v)!.some((f) => g.path === f || g.path.startsWith(`${f}.`) || g.path.startsWith(`${f}[`)),
    );
    const dropped = known.filter((v) => gatedFieldVerdict(g.field, v) === 'dropped');
    const maybe = known.filter((v) => gatedFieldVerdict(g.field, v) === 'maybe-dropped');
    if (dropped.length > 0) {
      problems.push(
        `[${c.node.path}] ${c.apiVersion} ${c.kind} ${g.path}: dropped on Kubernetes ${dropped.join(', ')}: the apiserver accepts the object and ` +
          `silently drops the field while the ${g.gate} feature gate is off (its default there; measured)`,
      );
    }
    if (maybe.length > 0) {
      Warnings.of(c).add(
        `${g.path}: may be dropped on Kubernetes ${maybe.join(', ')} (not measured: a neighbouring measured version drops it ` +
          `while the ${g.gate} feature gate is off by default)`,
      );
    }
  }
  return problems;
}
