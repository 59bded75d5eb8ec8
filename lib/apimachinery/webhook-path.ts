/**
 * The URL path of a kind's admission webhook, shared by the runtime's webhook server (where the
 * handler is served) and the chart (what the webhook configuration's `clientConfig.service.path`
 * says), so the two cannot disagree. Kubebuilder's convention:
 * `/validate-<group with dots as dashes>-<version>-<kind lowercase>` and `/mutate-…`; the core group is `core`.
 */

/** Which of a kind's two admission webhooks. */
export type WebhookType = 'validating' | 'defaulting';

/** `/validate-database-example-com-v1-sampledb` or `/mutate-database-example-com-v1-sampledb`. */
export function webhookPath(type: WebhookType, apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? 'core' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `/${type === 'validating' ? 'validate' : 'mutate'}-${group.replace(/\./g, '-')}-${version}-${kind.toLowerCase()}`;
}
