import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { appCrds, isCrd } from './_app-crds';
import { ourPolicyChecks } from './_policy-checks';
import { policyVersions } from './_policy-versions';
import {
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicyBindingOptions,
} from './validating-admission-policy-binding';
import { formatIssue } from '../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../apimachinery/kubernetes-versions';
import {
  AuditAnnotationSpec,
  clusterResolver,
  MatchConditionSpec,
  MatchResourcesSpec,
  ParamKindSpec,
  ValidatingAdmissionPolicyManifest,
  ValidationSpec,
  validatePolicyManifest,
  VariableSpec,
} from '../apiserver/admission-policy';
import { typeCheckPolicyDetails } from '../apiserver/admission-policy/type-check-policy';
import { markConstructChecked, POLICY_SPEC_FIELDS } from '../apiserver/builtin-validation/admission-construct-checked';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';
import { emitWhereServed } from '../synth-metadata/conditional-objects';
import { perVersion } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/** A type-checking warning the author has read and accepts, with the reason. */
export interface AcknowledgedPolicyWarning {
  /** The warning's field, e.g. `spec.validations[0].expression`. */
  readonly fieldRef: string;
  /** Why the warning is expected (e.g. a known false warning of the apiserver). */
  readonly reason: string;
}

export interface ValidatingAdmissionPolicyProps {
  /** The policy's name (cluster-scoped, a DNS subdomain). */
  readonly name: string;
  /**
   * Which requests the policy sees: `resourceRules` (at least one: the expressions are type-checked against the
   * kinds they name), `excludeResourceRules`, `namespaceSelector`, `objectSelector`, `matchPolicy`.
   * Use `ValidatingAdmissionPolicy.rulesFor(crd, operations)` for a CRD of the app.
   */
  readonly matchConstraints: MatchResourcesSpec;
  /** CEL validations: `expression` (bool), and `message`, `messageExpression` (string), `reason`. */
  readonly validations?: readonly ValidationSpec[];
  /** What happens when an expression errors or the policy is misconfigured. @default 'Fail' */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** Audit annotations: `key` and a `valueExpression` (string or null). */
  readonly auditAnnotations?: readonly AuditAnnotationSpec[];
  /** CEL conditions (bool) a request must meet for the validations to run. */
  readonly matchConditions?: readonly MatchConditionSpec[];
  /** Named CEL expressions, available to later variables and to validations as `variables.<name>`. */
  readonly variables?: readonly VariableSpec[];
  /** The kind of the parameter resource bindings refer to (`params`): a built-in kind or a CRD of the app. */
  readonly paramKind?: ParamKindSpec | ICustomResourceDefinition;
  /** Labels of the policy object. @default none */
  readonly labels?: { readonly [key: string]: string };
  /** Type-checking warnings (what the apiserver will write into `status.typeChecking`) accepted, by field. @default none */
  readonly acknowledgedWarnings?: readonly AcknowledgedPolicyWarning[];
  /**
   * When the app's Kubernetes range (`OperatorApp` `kubernetesVersions`) starts below 1.30, which does not serve
   * `admissionregistration.k8s.io/v1` policies: `'fail'` synth with the versions named, or `'skip'` them there: the
   * policy and its bindings go to their own file (`N-requires-1.30.yaml`, layout `APPLY_ORDER`) that `APPLY.md`
   * applies only where the cluster serves them. Choose `'skip'` only when the app is correct without the policy.
   * @default 'fail'
   */
  readonly onUnservedVersions?: 'fail' | 'skip';
}

/**
 * A ValidatingAdmissionPolicy (`admissionregistration.k8s.io/v1`: Kubernetes 1.30+; on 1.28 and 1.29 the API is
 * `v1beta1` behind the `ValidatingAdmissionPolicy` feature gate, which this construct does not emit). In an
 * `OperatorApp` whose range starts below 1.30, synth fails unless `onUnservedVersions: 'skip'`.
 *
 * At synth, exactly what kube-apiserver 1.32 refuses at create fails synth (every field and message), and the
 * warnings its status controller will write into `status.typeChecking` (expressions checked against the matched
 * kinds: the app's CRDs, the built-in kinds' vendored v1.32.13 OpenAPI) are synth warnings, acknowledgeable per
 * field. Beyond the server (marked as ours): errors in matchConditions, auditAnnotations and variables against the
 * matched kinds, which the server never reports.
 */
export class ValidatingAdmissionPolicy extends Construct {
  /**
   * Resource rules for a CRD: every served version, or the given ones. With several versions whose schemas differ,
   * name one (e.g. `[crd.storageVersion]`): with `matchPolicy: Equivalent` (the default) requests in the other
   * versions are converted to it before the policy sees them, and its expressions are checked against one schema.
   */
  public static rulesFor(
    crd: ICustomResourceDefinition,
    operations: readonly ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*')[],
    versions?: readonly string[],
  ): MatchResourcesSpec['resourceRules'] {
    versions ??= (crd.toManifest().spec.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
    return [
      {
        apiGroups: [crd.group],
        apiVersions: [...versions],
        operations: [...operations],
        resources: [crd.names.plural!],
      },
    ];
  }

  public readonly name: string;
  /** The emitted object. */
  public readonly resource: ApiObject;
  private readonly props: ValidatingAdmissionPolicyProps;

  constructor(scope: Construct, id: string, props: ValidatingAdmissionPolicyProps) {
    super(scope, id);
    this.props = props;
    this.name = props.name;
    this.resource = new ApiObject(this, 'Resource', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: props.name, ...(props.labels ? { labels: { ...props.labels } } : {}) },
      spec: Lazy.any({ produce: () => this.toManifest().spec }),
    });
    // its spec is checked by this construct's own validation: the app-wide check leaves it
    markConstructChecked(this.resource, POLICY_SPEC_FIELDS);
    this.node.addValidation({ validate: () => this.validatePolicy() });
    if (props.onUnservedVersions === 'skip') emitWhereServed(this);
  }

  /** A binding of this policy (`validationActions` default to Deny). */
  public bind(id: string, options: ValidatingAdmissionPolicyBindingOptions = {}): ValidatingAdmissionPolicyBinding {
    return new ValidatingAdmissionPolicyBinding(this, id, { ...options, policy: this });
  }

  /** Whether the policy declares a paramKind (its bindings need a paramRef). */
  public get hasParams(): boolean {
    return this.props.paramKind !== undefined;
  }

  public toManifest(): ValidatingAdmissionPolicyManifest {
    const p = this.props;
    const paramKind =
      p.paramKind && isCrd(p.paramKind)
        ? { apiVersion: p.paramKind.apiVersionFor(), kind: p.paramKind.names.kind }
        : (p.paramKind as ParamKindSpec | undefined);
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: p.name, ...(p.labels ? { labels: { ...p.labels } } : {}) },
      spec: {
        failurePolicy: p.failurePolicy ?? 'Fail',
        ...(paramKind ? { paramKind: { ...paramKind } } : {}),
        matchConstraints: p.matchConstraints,
        ...(p.matchConditions ? { matchConditions: p.matchConditions.map((m) => ({ ...m })) } : {}),
        ...(p.variables ? { variables: p.variables.map((v) => ({ ...v })) } : {}),
        ...(p.validations ? { validations: p.validations.map((v) => ({ ...v })) } : {}),
        ...(p.auditAnnotations ? { auditAnnotations: p.auditAnnotations.map((a) => ({ ...a })) } : {}),
      },
    };
  }

  /**
   * The apiserver's verdict for each Kubernetes version of the app's range that serves the policy (versions that do
   * not are the served-API check's: it fails synth or, with `onUnservedVersions: 'skip'`, emits the policy only where
   * served). A refusal or warning of only some versions names them.
   */
  private validatePolicy(): string[] {
    const manifest = this.toManifest();
    const versions = policyVersions(this, manifest);
    const refused = perVersion(versions, (v) => validatePolicyManifest(manifest, v).map((i) => formatIssue(i)));
    if (refused.length > 0) return refused;
    const resolver = clusterResolver(appCrds(this));
    const checks = new Map(versions.map((v) => [v, typeCheckPolicyDetails(manifest, resolver, v)]));
    const acknowledged = this.props.acknowledgedWarnings ?? [];
    const warned = (v: KubernetesVersion) =>
      checks
        .get(v)!
        .warnings.filter((w) => !acknowledged.some((a) => a.fieldRef === w.fieldRef))
        .map(
          (w) =>
            `${w.fieldRef}: the apiserver will report in status.typeChecking: ${w.warning.trim()}${explain(w.warning)}`,
        );
    for (const w of perVersion(versions, warned)) Warnings.of(this).add(w);
    for (const a of acknowledged) {
      if (![...checks.values()].some((c) => c.warnings.some((w) => w.fieldRef === a.fieldRef))) {
        Warnings.of(this).add(
          `acknowledgedWarnings: ${JSON.stringify(a.fieldRef)} matches no warning (stale? the reason was: ${a.reason})`,
        );
      }
    }
    const ours = versions.includes(DEFAULT_KUBERNETES_VERSION)
      ? DEFAULT_KUBERNETES_VERSION
      : versions[versions.length - 1];
    for (const issue of ourPolicyChecks(manifest, checks.get(ours)!)) Warnings.of(this).add(formatIssue(issue));
    return [];
  }
}

/** The apiserver's known false warnings, explained so that a correct policy does not look broken. */
function explain(warning: string): string {
  if (/undefined field '(limits|requests|sizeLimit|capacity|allocatable|hard|used)'/.test(warning)) {
    return ' (a known false warning: resource.Quantity fields are absent from the typed built-in schemas; the expression works at admission)';
  }
  if (/unexpected failed resolution of 'kubernetes\.authorization\.Authorizer'/.test(warning)) {
    return ' (a known false warning: the type checker does not declare authorizer.requestResource; it works at admission)';
  }
  return '';
}
