import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { KUBERNETES_VERSIONS, KubernetesVersion } from '../apimachinery/kubernetes-versions';
import { servedBy, servedRange } from '../apimachinery/served-apis';
import {
  fieldsUnknownTo,
  GatedField,
  gatedFieldsSet,
  gatedFieldVerdict,
} from '../apiserver/admission-policy/builtin-fields';
import { CrdManifest } from '../apiserver/crd-manifest';
import { SchemaCheckMemo } from '../apiserver/crd-validation/schema-check-memo';
import { checkCrdForVersions } from '../apiserver/crd-validation/version-support';

/** An object that needs a newer Kubernetes version than the oldest supported one, and why the version before fails. */
export interface ObjectNeeds {
  /** `<apiVersion> <kind> <name>`. */
  readonly object: string;
  readonly path: string;
  /** The oldest version from which every newer supported version takes the object. */
  readonly requires: KubernetesVersion;
  /** What the version before `requires` lacks. */
  readonly why: string;
}

/**
 * What each object of the app needs, by the synth checks of each supported version (1.28 to 1.37, whatever the
 * app's range): its API version served, every field known and kept (measured gated fields), and for a CRD its
 * fields, CEL environment and cost. Objects every supported version takes are left out.
 *
 * @internal
 */
export function minimumVersions(app: IConstruct): ObjectNeeds[] {
  const out: ObjectNeeds[] = [];
  for (const c of app.node.findAll()) {
    if (!(c instanceof ApiObject)) continue;
    const json = c.toJson();
    const memo = new SchemaCheckMemo(); // a CRD's schemas checked, and the newest version's rules compiled, once for every version asked
    let gated: GatedField[] | undefined; // the object's gated fields, the same for every version asked
    const failure = (v: KubernetesVersion): string | undefined => {
      if (!servedBy(c.apiVersion, c.kind, v)) {
        return `${c.apiVersion} ${c.kind} is not served (${servedRange(c.apiVersion, c.kind)})`;
      }
      if (c.kind === 'CustomResourceDefinition') {
        const issue = checkCrdForVersions(json as CrdManifest, [v], memo)[0];
        return issue ? `${issue.path}: ${issue.message}` : undefined;
      }
      const unknown = fieldsUnknownTo(json, v)[0];
      if (unknown) return `${unknown}: not a field of its API there`;
      const dropped = (gated ??= gatedFieldsSet(json)).find((g) => gatedFieldVerdict(g.field, v) === 'dropped');
      return dropped
        ? `${dropped.path}: dropped while the ${dropped.gate} feature gate is off (its default there)`
        : undefined;
    };
    let oldest: number = KUBERNETES_VERSIONS.length;
    while (oldest > 0 && failure(KUBERNETES_VERSIONS[oldest - 1]) === undefined) oldest--;
    if (oldest === 0 || oldest === KUBERNETES_VERSIONS.length) continue;
    out.push({
      object: `${c.apiVersion} ${c.kind} ${c.name}`,
      path: c.node.path,
      requires: KUBERNETES_VERSIONS[oldest],
      why: `${KUBERNETES_VERSIONS[oldest - 1]}: ${failure(KUBERNETES_VERSIONS[oldest - 1])}`,
    });
  }
  return out;
}
