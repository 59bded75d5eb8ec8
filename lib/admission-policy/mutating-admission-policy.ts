import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { appCrds, isCrd } from './_app-crds';
import { policyVersions } from './_policy-versions';
import {
  MutatingAdmissionPolicyBinding,
  MutatingAdmissionPolicyBindingOptions,
} from './mutating-admission-policy-binding';
import { MutationPreviewOfObject, previewOnAppObjects } from './mutation-previews';
import { formatIssue } from '../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../apimachinery/kubernetes-versions';
import {
  clusterResolver,
  MatchConditionSpec,
  MatchResourcesSpec,
  MutatingAdmissionPolicyManifest,
  MutationSpec,
  ParamKindSpec,
  typeCheckMutations,
  validateMutatingPolicyManifest,
  VariableSpec,
} from '../apiserver/admission-policy';
import { markConstructChecked, POLICY_SPEC_FIELDS } from '../apiserver/builtin-validation/admission-construct-checked';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';
import { emitWhereServed } from '../synth-metadata/conditional-objects';
import { perVersion } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

export interface MutatingAdmissionPolicyProps {
  /** The policy's name (cluster-scoped, a DNS subdomain). */
  readonly name: string;
  /**
   * Which requests the policy mutates: `resourceRules` (at least one; CREATE, UPDATE, CONNECT or `*`, never DELETE),
   * `excludeResourceRules`, `namespaceSelector`, `objectSelector`, `matchPolicy`. `ValidatingAdmissionPolicy.rulesFor`
   * builds rules for a CRD of the app.
   */
  readonly matchConstraints: MatchResourcesSpec;
  /**
   * The mutations, in order: `MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{…}}')` (merged
   * with server-side apply's rules) or `MutatingAdmissionPolicy.jsonPatch('[JSONPatch{op: …, path: …, value: …}]')`.
   */
  readonly mutations: readonly MutationSpec[];
  /**
   * Whether the mutations run again when a later mutation (another policy or webhook) changed the object: `Never` or
   * `IfNeeded`. @default 'Never'
   */
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** What happens when an expression errors or the policy is misconfigured. @default 'Fail' */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** CEL conditions (bool) a request must meet for the mutations to run. */
  readonly matchConditions?: readonly MatchConditionSpec[];
  /** Named CEL expressions, available to later variables and to the mutations as `variables.<name>`. */
  readonly variables?: readonly VariableSpec[];
  /** The kind of the parameter resource bindings refer to (`params`): a built-in kind or a CRD of the app. */
  readonly paramKind?: ParamKindSpec | ICustomResourceDefinition;
  /** Labels of the policy object. @default none */
  readonly labels?: { readonly [key: string]: string };
  /**
   * When the app's Kubernetes range (`OperatorApp` `kubernetesVersions`) starts below 1.36, which does not serve
   * `admissionregistration.k8s.io/v1` mutating policies (1.34 and 1.35 serve `v1beta1` only behind the
   * MutatingAdmissionPolicy feature gate, which this construct does not emit): `'fail'` synth with the versions named,
   * or `'skip'` them there: the policy and its bindings go to their own file that `APPLY.md` applies only where the
   * cluster serves them. Choose `'skip'` only when the app is correct without the policy there (e.g. a defaulting
   * webhook does the same on older clusters). @default 'fail'
   */
  readonly onUnservedVersions?: 'fail' | 'skip';
}

/**
 * A MutatingAdmissionPolicy (`admissionregistration.k8s.io/v1`: Kubernetes 1.36+): defaulting and mutation in CEL,
 * run inside the apiserver, with no webhook server, certificates or availability risk.
 *
 * At synth, what kube-apiserver 1.36 refuses at create fails synth, every field and message (measured on v1.36.3:
 * test/apiserver/admission-policy/mutating-corpus.test.ts). The apiserver does not type-check mutations against the
 * kinds they match (it accepts `Object.spec{replicaz: 'x'}` and fails at admission): here each mutation is checked
 * against the matched kinds (the app's CRDs, the built-in kinds' vendored OpenAPI), and what fails is a synth warning
 * marked as ours.
 */
export class MutatingAdmissionPolicy extends Construct {
  /** A mutation by an apply configuration: a CEL expression building `Object{…}`. */
  public static applyConfiguration(expression: string): MutationSpec {
    return { patchType: 'ApplyConfiguration', applyConfiguration: { expression } };
  }

  /** A mutation by a JSON patch: a CEL expression building a list of `JSONPatch{op, path, from, value}`. */
  public static jsonPatch(expression: string): MutationSpec {
    return { patchType: 'JSONPatch', jsonPatch: { expression } };
  }

  public readonly name: string;
  /** The emitted object. */
  public readonly resource: ApiObject;
  private readonly props: MutatingAdmissionPolicyProps;

  constructor(scope: Construct, id: string, props: MutatingAdmissionPolicyProps) {
    super(scope, id);
    this.props = props;
    this.name = props.name;
    this.resource = new ApiObject(this, 'Resource', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: props.name, ...(props.labels ? { labels: { ...props.labels } } : {}) },
      spec: Lazy.any({ produce: () => this.toManifest().spec }),
    });
    // its spec is checked by this construct's own validation: the app-wide check leaves it
    markConstructChecked(this.resource, POLICY_SPEC_FIELDS);
    this.node.addValidation({ validate: () => this.validatePolicy() });
    if (props.onUnservedVersions === 'skip') emitWhereServed(this);
  }

  /** A binding of this policy. */
  public bind(id: string, options: MutatingAdmissionPolicyBindingOptions = {}): MutatingAdmissionPolicyBinding {
    return new MutatingAdmissionPolicyBinding(this, id, { ...options, policy: this });
  }

  /**
   * What the policy does on create to each custom resource of the app it matches (the preview the synth report
   * shows): the changes, or why it cannot be known at synth.
   */
  public preview(): MutationPreviewOfObject[] {
    return previewOnAppObjects(this, this.toManifest(), this.previewVersion());
  }

  /** Whether the policy declares a paramKind (its bindings need a paramRef). */
  public get hasParams(): boolean {
    return this.props.paramKind !== undefined;
  }

  public toManifest(): MutatingAdmissionPolicyManifest {
    const p = this.props;
    const paramKind =
      p.paramKind && isCrd(p.paramKind)
        ? { apiVersion: p.paramKind.apiVersionFor(), kind: p.paramKind.names.kind }
        : (p.paramKind as ParamKindSpec | undefined);
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: p.name, ...(p.labels ? { labels: { ...p.labels } } : {}) },
      spec: {
        failurePolicy: p.failurePolicy ?? 'Fail',
        ...(paramKind ? { paramKind: { ...paramKind } } : {}),
        matchConstraints: p.matchConstraints,
        ...(p.matchConditions ? { matchConditions: p.matchConditions.map((m) => ({ ...m })) } : {}),
        ...(p.variables ? { variables: p.variables.map((v) => ({ ...v })) } : {}),
        mutations: p.mutations.map((m) => ({ ...m })),
        reinvocationPolicy: p.reinvocationPolicy ?? 'Never',
      },
    };
  }

  /** The version whose apiserver the type check and the preview imitate: the default, else the newest that serves it. */
  private previewVersion(versions = policyVersions(this, this.toManifest())): KubernetesVersion {
    return versions.includes(DEFAULT_KUBERNETES_VERSION) ? DEFAULT_KUBERNETES_VERSION : versions[versions.length - 1];
  }

  /**
   * The apiserver's verdict for each version of the app's range that serves the policy (the others are the
   * served-API check's), then the mutations type-checked against the matched kinds (warnings, ours).
   */
  private validatePolicy(): string[] {
    const manifest = this.toManifest();
    const versions = policyVersions(this, manifest);
    const refused = perVersion(versions, (v) => validateMutatingPolicyManifest(manifest, v).map((i) => formatIssue(i)));
    if (refused.length > 0) return refused;
    const version = this.previewVersion(versions);
    for (const issue of typeCheckMutations(manifest, clusterResolver(appCrds(this)), version)) {
      Warnings.of(this).add(formatIssue(issue));
    }
    // the preview on the app's custom resources: what fails there fails synth, naming the policy and the object
    const errors: string[] = [];
    for (const p of previewOnAppObjects(this, manifest, version)) {
      errors.push(...p.errors.map((e) => `on ${p.object}: ${e}`));
      for (const w of p.warnings) Warnings.of(this).add(`on ${p.object}: ${w}`);
    }
    return errors;
  }
}
