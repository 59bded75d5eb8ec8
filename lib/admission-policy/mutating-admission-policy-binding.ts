import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { policyVersions } from './_policy-versions';
import { formatIssue } from '../apimachinery/issue';
import {
  MatchResourcesSpec,
  MutatingAdmissionPolicyBindingManifest,
  ParamRefSpec,
  validateMutatingBindingManifest,
} from '../apiserver/admission-policy';
import { markConstructChecked, POLICY_SPEC_FIELDS } from '../apiserver/builtin-validation/admission-construct-checked';
import { perVersion } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/** What a binding adds to its policy. */
export interface MutatingAdmissionPolicyBindingOptions {
  /** The binding's name. @default the policy's name */
  readonly name?: string;
  /** The parameter resource(s) of a policy with a paramKind: `name` or `selector`, `namespace`, `parameterNotFoundAction`. */
  readonly paramRef?: ParamRefSpec;
  /** Narrows the policy's matchConstraints (the binding mutates only what both match). @default the policy's */
  readonly matchResources?: MatchResourcesSpec;
}

export interface MutatingAdmissionPolicyBindingProps extends MutatingAdmissionPolicyBindingOptions {
  /** The bound policy: a construct of the app, or the name of a policy installed otherwise. */
  readonly policy: { readonly name: string; readonly hasParams: boolean } | string;
}

/**
 * A MutatingAdmissionPolicyBinding (`admissionregistration.k8s.io/v1`, Kubernetes 1.36+). A policy mutates nothing
 * until it is bound; each binding runs the policy's mutations once (more with `reinvocationPolicy: IfNeeded`). What
 * the apiserver refuses at create fails synth; a binding without a paramRef for a policy with a paramKind is a warning.
 */
export class MutatingAdmissionPolicyBinding extends Construct {
  public readonly name: string;
  /** The emitted object. */
  public readonly resource: ApiObject;
  private readonly props: MutatingAdmissionPolicyBindingProps;

  constructor(scope: Construct, id: string, props: MutatingAdmissionPolicyBindingProps) {
    super(scope, id);
    this.props = props;
    this.name = props.name ?? (typeof props.policy === 'string' ? props.policy : props.policy.name);
    this.resource = new ApiObject(this, 'Resource', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
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
            `spec.paramRef: policy ${JSON.stringify(p.name)} declares a paramKind but this binding gives no paramRef: \`params\` is null in its expressions`,
          );
        }
        const manifest = this.toManifest();
        return perVersion(policyVersions(this, manifest), (v) =>
          validateMutatingBindingManifest(manifest, v).map((i) => formatIssue(i)),
        );
      },
    });
  }

  public toManifest(): MutatingAdmissionPolicyBindingManifest {
    const p = this.props;
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: this.name },
      spec: {
        policyName: typeof p.policy === 'string' ? p.policy : p.policy.name,
        ...(p.paramRef ? { paramRef: { ...p.paramRef } } : {}),
        ...(p.matchResources ? { matchResources: p.matchResources } : {}),
      },
    };
  }
}
