import { embeddedDecodeError } from './embedded-decode';
import { CANNOT_BE_HANDLED, cannotBeHandled, checkObjectMeta, UNDECODABLE_HINT } from './object-meta';
import { checkScaleReplicas } from './scale-replicas';
import { validateValue, ValueValidation } from './value-validator';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { CrdVersionSpec, ResourceScope } from '../crd-manifest';

/** What a custom resource is checked against: its CRD's scope and kind, and the version it is written in. */
export interface CustomResourceDefinitionVersion {
  readonly scope: ResourceScope | string;
  readonly kind: string;
  readonly version: CrdVersionSpec;
}

/** Options of `validateCustomResource`. */
export interface ValidateCustomResourceOptions {
  /**
   * The Kubernetes version whose apiserver to imitate.
   * @default '1.32'
   */
  readonly kubernetesVersion?: KubernetesVersion;
  /**
   * The stored object, for transition rules (an update).
   * @default - a create
   */
  readonly oldObject?: Record<string, unknown>;
}

/**
 * Everything the apiserver checks when a custom resource is created (or updated, with `oldObject`): ObjectMeta,
 * the version's schema (defaults, schema, CEL rules), and the scale subresource's replicas paths. With the
 * status subresource, status is dropped first (the apiserver neither stores nor validates it on create).
 * `value` is the object as it would be stored.
 *
 * @internal
 */
export function validateCustomResource(
  def: CustomResourceDefinitionVersion,
  object: Record<string, unknown>,
  options: ValidateCustomResourceOptions = {},
): ValueValidation {
  const kubernetesVersion = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const statusSubresource = def.version.subresources?.status !== undefined;
  const stored = (o: Record<string, unknown>) => (statusSubresource ? withoutStatus(o) : o);
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const issues: Issue[] = [
    ...checkObjectMeta(metadata, def.scope, def.kind, undefined, {
      kubernetesVersion,
      resourceVersion: def.version.name,
    }),
  ];
  const schema = def.version.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  };
  // an object the apiserver cannot decode is refused with that one error, before any validation
  if (issues.some((i) => i.message.includes(CANNOT_BE_HANDLED))) return { issues, value: object };
  const undecodable = embeddedDecodeError(schema, object, '', kubernetesVersion);
  if (undecodable) {
    const path = undecodable.slice(0, undecodable.indexOf(': '));
    return {
      issues: [
        ...issues,
        { path, message: cannotBeHandled(def.kind, def.version.name, undecodable), hint: UNDECODABLE_HINT },
      ],
      value: object,
    };
  }
  const validated = validateValue(schema, stored(object), {
    oldValue: options.oldObject && stored(options.oldObject),
    kubernetesVersion,
    // ObjectMeta's errors are in the list the apiserver looks at before running CEL rules
    blockingErrorsBefore: issues.some((i) => BLOCKING.test(i.message)),
  });
  issues.push(...validated.issues);
  if (statusSubresource && object.status !== undefined && schema.properties?.status) {
    // status is dropped after decoding: strict field validation still reports its unknown fields
    const status = validateValue(schema.properties.status, object.status, {
      path: 'status',
      resourceRoot: false,
      evaluateRules: false,
      kubernetesVersion,
    });
    issues.push(...status.issues.filter((i) => i.message.startsWith('unknown field ')));
  }
  const scale = def.version.subresources?.scale;
  if (scale) issues.push(...checkScaleReplicas(scale, validated.value, statusSubresource));
  return { issues, value: validated.value };
}

/** The field error types after which the apiserver skips CEL rules, by their messages. */
const BLOCKING = /^(Required value|Unsupported value|Too long|Too many)\b/;

function withoutStatus(o: Record<string, unknown>): Record<string, unknown> {
  const { status: _dropped, ...rest } = o;
  return rest;
}
