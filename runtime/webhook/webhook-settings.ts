/**
 * How a controller binary learns where its webhook certificates live: environment variables the
 * chart (`Operator` with `contract.webhooks`) sets on the Deployment, read by `startControllerBinary`.
 *
 * | variable | meaning |
 * |---|---|
 * | `WEBHOOK_CERT_SECRET` | the certificate Secret in the operator's namespace (`POD_NAMESPACE`) |
 * | `WEBHOOK_SERVICE` | the webhook Service: the serving certificate's DNS names are derived from it |
 * | `WEBHOOK_CERTIFICATES` | `self-managed` (the leader issues, rotates and injects), `cert-manager` (read only), or `files` |
 * | `WEBHOOK_CERT_DIR` | with `files`: a folder holding `tls.crt` and `tls.key`, read once at start (local runs, envtest) |
 * | `WEBHOOK_CA_INJECT` | `Kind/name,...`: the webhook configurations and CRDs whose caBundle the operator owns |
 * | `WEBHOOK_CA_VALIDITY`, `WEBHOOK_CERT_VALIDITY` | durations (`8760h`, `90s`): CA 365 days, serving certificate 90 days by default |
 * | `WEBHOOK_CERT_CHECK_INTERVAL`, `WEBHOOK_CA_PROPAGATION`, `WEBHOOK_CERT_RELOAD_INTERVAL` | 1m, 30s, 10s by default |
 *
 * Guarantees: a malformed value throws naming the variable and the value, before anything connects.
 */
import type { CaBundleTarget } from './ca-injection';

/**
 * How long an in-cluster webhook server keeps accepting after SIGTERM made its readiness fail. The endpoint of a
 * terminating pod leaves the Service only once kube-proxy has synced; a listener closed before that answers the
 * apiserver's calls with "connection refused" (seen in a rollout of the SampleDB operator under rotation traffic:
 * 4 of 10,401 admission requests). Well inside the chart's 30 s termination grace period.
 */
export const IN_CLUSTER_WEBHOOK_SHUTDOWN_DELAY_MS = 5000;

/** Parsed webhook environment. */
export interface WebhookSettings {
  readonly certificates: 'self-managed' | 'cert-manager' | 'files';
  /** With `files`: the folder of `tls.crt` and `tls.key`. */
  readonly certDir?: string;
  readonly namespace: string;
  readonly secretName: string;
  readonly serviceName: string;
  /** The Service's DNS names, short to fully qualified. */
  readonly dnsNames: readonly string[];
  readonly inject: readonly CaBundleTarget[];
  readonly caValidityMs?: number;
  readonly servingValidityMs?: number;
  readonly checkIntervalMs?: number;
  readonly caPropagationMs?: number;
  readonly reloadIntervalMs?: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go-style duration (`1h30m`, `90s`, `500ms`) in milliseconds; throws naming `name` when malformed. */
export function parseDuration(name: string, value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (!value || parts.map((p) => p[0]).join('') !== value) {
    throw new Error(`${name}: must be a duration like 90s, 30m or 8760h, got '${value}'`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]], 0);
  if (ms <= 0) throw new Error(`${name}: must be positive, got '${value}'`);
  return ms;
}

const KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'CustomResourceDefinition'];

/** The settings, or undefined when neither `WEBHOOK_CERT_SECRET` nor `WEBHOOK_CERT_DIR` is set (not running from the chart). */
export function webhookSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): WebhookSettings | undefined {
  const problems: string[] = [];
  if (env.WEBHOOK_CERT_DIR) {
    if ((env.WEBHOOK_CERTIFICATES ?? 'files') !== 'files') {
      problems.push(`WEBHOOK_CERT_DIR: only with WEBHOOK_CERTIFICATES=files, got '${env.WEBHOOK_CERTIFICATES}'`);
    }
    if (problems.length) throw new Error(`webhook environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return {
      certificates: 'files',
      certDir: env.WEBHOOK_CERT_DIR,
      namespace: '',
      secretName: '',
      serviceName: '',
      dnsNames: [],
      inject: [],
    };
  }
  const secretName = env.WEBHOOK_CERT_SECRET;
  if (!secretName) return undefined;
  const namespace = env.POD_NAMESPACE ?? '';
  if (!namespace) problems.push('POD_NAMESPACE: must be set (the chart sets it from the downward API)');
  const serviceName = env.WEBHOOK_SERVICE ?? env.WEBHOOK_SERVICE_NAME ?? '';
  if (!serviceName) problems.push('WEBHOOK_SERVICE: must name the webhook Service');
  const certificates = env.WEBHOOK_CERTIFICATES ?? 'self-managed';
  if (certificates !== 'self-managed' && certificates !== 'cert-manager') {
    problems.push(`WEBHOOK_CERTIFICATES: must be self-managed or cert-manager, got '${certificates}'`);
  }
  const inject: CaBundleTarget[] = [];
  for (const item of (env.WEBHOOK_CA_INJECT ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [kind, name, extra] = item.split('/');
    if (!KINDS.includes(kind) || !name || extra !== undefined) {
      problems.push(
        `WEBHOOK_CA_INJECT: each item must be Kind/name with Kind one of ${KINDS.join(', ')}, got '${item}'`,
      );
    } else {
      inject.push({ kind: kind as CaBundleTarget['kind'], name });
    }
  }
  const duration = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    try {
      return parseDuration(name, v);
    } catch (err) {
      problems.push((err as Error).message);
      return undefined;
    }
  };
  const settings: WebhookSettings = {
    certificates: certificates as WebhookSettings['certificates'],
    namespace,
    secretName,
    serviceName,
    dnsNames: [
      serviceName,
      `${serviceName}.${namespace}`,
      `${serviceName}.${namespace}.svc`,
      `${serviceName}.${namespace}.svc.cluster.local`,
    ],
    inject,
    caValidityMs: duration('WEBHOOK_CA_VALIDITY'),
    servingValidityMs: duration('WEBHOOK_CERT_VALIDITY'),
    checkIntervalMs: duration('WEBHOOK_CERT_CHECK_INTERVAL'),
    caPropagationMs: duration('WEBHOOK_CA_PROPAGATION'),
    reloadIntervalMs: duration('WEBHOOK_CERT_RELOAD_INTERVAL'),
  };
  if (problems.length) throw new Error(`webhook environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return settings;
}
