/**
 * CA bundle injection: writes the PEM bundle the apiserver must trust into the operator's own
 * webhook configurations (`webhooks[*].clientConfig.caBundle`) and CRD conversion
 * (`spec.conversion.webhook.clientConfig.caBundle`), each addressed by name.
 *
 * Guarantees:
 * - Reads the object by name and patches only when a caBundle differs (steady state: one GET, no write),
 *   so RBAC needs `get`, `patch` with `resourceNames` and nothing cluster-wide.
 * - The JSON patch `test`s each webhook's name at its index before setting its caBundle, so a concurrent
 *   reorder of `webhooks` fails the patch (retried next round) instead of writing the wrong entry.
 * - A CRD is patched only when its conversion strategy is `Webhook` (a caBundle under `None` is invalid).
 * - The chart never renders `caBundle` (it would fight this writer under GitOps: the caBundle is the
 *   operator's field, as the manifests say in a comment).
 */
import type { JsonPatchOperation, KubeClient } from '../client';
import type { KubeObject, ResourceRef } from '../resource';

/**
 * Annotation on the certificate Secret: `<sha256 of the bundle>@<time>` when the leader last wrote that CA
 * bundle into every target. A replica serves a certificate only once it is set (self-managed mode).
 */
export const INJECTED_ANNOTATION = 'webhook.cdk8s-operator.io/ca-bundle-injected';

/**
 * Annotation on the certificate Secret that forces a CA rotation (with the usual overlap) at the leader's next
 * round; the leader removes it in the same write. `kubectl annotate secret <name> webhook.cdk8s-operator.io/rotate=now`.
 */
export const ROTATE_ANNOTATION = 'webhook.cdk8s-operator.io/rotate';

/** Something whose caBundle the operator owns. */
export interface CaBundleTarget {
  readonly kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration' | 'CustomResourceDefinition';
  readonly name: string;
}

const REFS: Record<CaBundleTarget['kind'], ResourceRef> = {
  ValidatingWebhookConfiguration: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
  },
  MutatingWebhookConfiguration: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
  },
  CustomResourceDefinition: {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
  },
};

/** The JSON patch that sets `caBundle` (base64) everywhere in `object` it differs; empty when nothing does. */
export function caBundlePatch(
  kind: CaBundleTarget['kind'],
  object: KubeObject,
  caBundle: string,
): JsonPatchOperation[] {
  if (kind === 'CustomResourceDefinition') {
    const conversion = (
      object.spec as
        { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } } | undefined
    )?.conversion;
    if (conversion?.strategy !== 'Webhook' || !conversion.webhook?.clientConfig) return [];
    return conversion.webhook.clientConfig.caBundle === caBundle
      ? []
      : [{ op: 'add', path: '/spec/conversion/webhook/clientConfig/caBundle', value: caBundle }];
  }
  const webhooks = (object.webhooks ?? []) as { name: string; clientConfig?: { caBundle?: string } }[];
  return webhooks.flatMap((w, i) =>
    w.clientConfig?.caBundle === caBundle
      ? []
      : [
          { op: 'test' as const, path: `/webhooks/${i}/name`, value: w.name },
          { op: 'add' as const, path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle },
        ],
  );
}

/**
 * Sets the CA bundle (PEM) on a target. Resolves `true` when it wrote, `false` when it was already
 * set; throws the API error otherwise (e.g. 404 when the chart's object is missing, 403 without RBAC).
 */
export async function injectCaBundle(client: KubeClient, target: CaBundleTarget, bundlePem: string): Promise<boolean> {
  const ref = REFS[target.kind];
  const object = await client.get(ref, target.name);
  const ops = caBundlePatch(target.kind, object, Buffer.from(bundlePem).toString('base64'));
  if (ops.length === 0) return false;
  await client.patch(ref, target.name, undefined, { type: 'json', ops });
  return true;
}
