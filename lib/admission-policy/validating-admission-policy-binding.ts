import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { policyVersions } from './_policy-versions';
import { formatIssue } from '../apimachinery/issue';
import {
  MatchResourcesSpec,
  ParamRefSpec,
  ValidatingAdmissionPolicyBindingManifest,
  validateBindingManifest,
} from '../apiserver/admission-policy';
import { markConstructChecked, POLICY_SPEC_FIELDS } from '../apiserver/builtin-validation/admission-construct-checked';
import { perVersion } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/** What a binding adds to its policy. */
export interface ValidatingAdmissionPolicyBindingOptions {
  /** The binding's name. @default the policy's name */
  readonly name?: string;
  /** What a failed validation does: `Deny`, `Warn`, `Audit` (not both Deny and Warn). @default ['Deny'] */
  readonly validationActions?: readonly ('Deny' | 'Warn' | 'Audit')[];
  /** The parameter resource(s) of a policy with a paramKind: `name` or `selector`, `namespace`, `parameterNotFoundAction`. */
  readonly paramRef?: ParamRefSpec;
  /** Narrows the policy's matchConstraints (the binding matches only what both match). @default the policy's */
  readonly matchResources?: MatchResourcesSpec;
}

export interface ValidatingAdmissionPolicyBindingProps extends ValidatingAdmissionPolicyBindingOptions {
  /** The bound policy: a construct of the app, or the name of a policy installed otherwise. */
  readonly policy: { readonly name: string; readonly hasParams: boolean } | string;
}

/**
 * A ValidatingAdmissionPolicyBinding (`admissionregistration.k8s.io/v1`, Kubernetes 1.30+). A policy does nothing
 * until it is bound. At synth, what the apiserver refuses at create fails synth; a binding without a paramRef for a
 * policy that declares a paramKind (which the apiserver accepts and every admission then treats as a misconfigured
 * policy, applying its failurePolicy) is a warning.
 */
export class ValidatingAdmissionPolicyBinding extends Construct {
  public readonly name: string;
  /** The emitted object. */
  public readonly resource: ApiObject;
  private readonly props: ValidatingAdmissionPolicyBindingProps;

  constructor(scope: Construct, id: string, props: ValidatingAdmissionPolicyBindingProps) {
    super(scope, id);
    this.props = props;
    this.name = props.name ?? (typeof props.policy === 'string' ? props.policy : props.policy.name);
    this.resource = new ApiObject(this, 'Resource', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: this.name },
      spec: Lazy.any({ produce: () => this.toManifest().spec }),
    });
    // its spec is checked by this construct's own validation: the app-wide check leaves it
    markConstructChecked(this.resource, POLICY_SPEC_FIELDS);
    this.node.addValidation({
      validate: () => {
        const p = this.props.policy;
        if (typeof p !== 'string' && p.hasParams && !this.props.paramRef) {
          Warnings.of(this).add(
            `spec.paramRef: policy ${JSON.stringify(p.name)} declares a paramKind but this binding gives no paramRef: every admission it matches fails as a misconfigured policy (its failurePolicy applies)`,
          );
        }
        if (typeof p !== 'string' && !p.hasParams && this.props.paramRef) {
          Warnings.of(this).add(
            `spec.paramRef: policy ${JSON.stringify(p.name)} declares no paramKind: the paramRef is ignored`,
          );
        }
        const manifest = this.toManifest();
        return perVersion(policyVersions(this, manifest), (v) =>
          validateBindingManifest(manifest, v).map((i) => formatIssue(i)),
        );
      },
    });
  }

  public toManifest(): ValidatingAdmissionPolicyBindingManifest {
    const p = this.props;
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: this.name },
      spec: {
        policyName: typeof p.policy === 'string' ? p.policy : p.policy.name,
        validationActions: [...(p.validationActions ?? ['Deny'])],
        ...(p.paramRef ? { paramRef: { ...p.paramRef } } : {}),
        ...(p.matchResources ? { matchResources: p.matchResources } : {}),
      },
    };
  }
}
