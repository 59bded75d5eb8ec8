/**
 * Webhooks in envtest, as controller-runtime's `WebhookInstallOptions`: the webhook configurations (and
 * conversion CRDs) of a chart are installed with their `clientConfig` pointing at the test's own server
 * — a `url` on 127.0.0.1 with a CA made for the test — so a user's handlers are called by the real
 * apiserver, with its real admission chain, JSON patch application and error messages.
 *
 * Expected flow:
 * ```ts
 * const plane = await ControlPlane.start({ crdPaths: ['dist/'] });
 * const hooks = await plane.installWebhooks({ paths: ['dist/'] });         // or configurations: [...]
 * const server = new WebhookServer({ certificates: staticCertificate(hooks.certificate), bindAddress: hooks.bindAddress });
 * server.validating(...); await server.start();
 * ```
 *
 * Guarantees: every webhook keeps its rules, selectors, matchConditions, failurePolicy and timeout; only
 * `clientConfig` changes, to `{ url: https://127.0.0.1:<port><service.path>, caBundle }`. A CRD whose
 * conversion strategy is `Webhook` gets the same treatment for its conversion `clientConfig`. Objects are
 * created, or replaced whole when they exist (a second call replaces them). The serving certificate names `127.0.0.1` and `localhost`.
 *
 * Caveats: the apiserver reads webhook configurations through an informer: a configuration is in effect
 * a moment (well under a second here) after it was created, so a test's first request may have to retry
 * until the webhook answers.
 */
import { waitEstablished } from './crds';
import { HttpTarget, request } from './http';
import { readManifests } from './manifest-files';
import { freePort } from './process';
import { createCertificateAuthority, createServingCertificate } from '../webhook/certificates';

/** What to install: configurations given or read from YAML files/folders (e.g. `dist/`). */
export interface WebhookInstallOptions {
  /** ValidatingWebhookConfiguration, MutatingWebhookConfiguration and conversion CRD objects. @default [] */
  readonly configurations?: readonly object[];
  /** YAML files or folders whose webhook configurations (and conversion CRDs) are installed. @default [] */
  readonly paths?: readonly string[];
  /** Port the test's server will listen on. @default - a free port */
  readonly port?: number;
}

/** Where the test's webhook server must listen, and the certificate it must serve. */
export interface InstalledWebhooks {
  /** `127.0.0.1:<port>`: the server's bind address. */
  readonly bindAddress: string;
  readonly port: number;
  /** Serving certificate and key (PEM) for 127.0.0.1 / localhost, signed by `caPem`. */
  readonly certificate: { readonly cert: string; readonly key: string };
  /** The CA the apiserver was told to trust (each `caBundle`). */
  readonly caPem: string;
  /** Names of what was installed, `Kind/name`. */
  readonly installed: readonly string[];
}

const WEBHOOK_KINDS: Record<string, string> = {
  ValidatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
  MutatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
};

interface ClientConfig {
  url?: string;
  service?: { path?: string; port?: number };
  caBundle?: string;
}
/** A webhook configuration or a CRD, as far as installWebhooks reads them. */
interface WebhookManifest {
  kind?: string;
  metadata?: { name?: string };
  webhooks?: { clientConfig?: ClientConfig }[];
  spec?: any;
}

/** The webhook configurations and the CRDs converted by a webhook among the manifests of `paths`. */
function readWebhookManifests(paths: readonly string[]): WebhookManifest[] {
  return (readManifests(paths) as unknown as WebhookManifest[]).filter(
    (obj) =>
      obj.kind! in WEBHOOK_KINDS ||
      (obj.kind === 'CustomResourceDefinition' && obj.spec?.conversion?.strategy === 'Webhook'),
  );
}

function pointAt(config: ClientConfig | undefined, port: number, caBundle: string): ClientConfig {
  if (config?.url) {
    const u = new URL(config.url);
    return { url: `https://127.0.0.1:${port}${u.pathname}${u.search}`, caBundle };
  }
  return { url: `https://127.0.0.1:${port}${config?.service?.path ?? '/'}`, caBundle };
}

/** Installs webhook configurations pointing at a local server. @internal (use `ControlPlane.installWebhooks`) */
export async function installWebhooks(
  target: HttpTarget,
  options: WebhookInstallOptions,
  timeoutMs: number,
): Promise<InstalledWebhooks> {
  const port = options.port ?? (await freePort());
  const ca = createCertificateAuthority({ validityMs: 24 * 3_600_000, commonName: 'envtest-webhook-ca' });
  const certificate = createServingCertificate(ca, {
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    validityMs: 24 * 3_600_000,
  });
  const caBundle = Buffer.from(ca.cert).toString('base64');
  const manifests = [
    ...((options.configurations ?? []) as WebhookManifest[]),
    ...readWebhookManifests(options.paths ?? []),
  ];
  const installed: string[] = [];
  const crds: object[] = [];
  for (const m of manifests) {
    const name = m.metadata?.name;
    if (m.kind === 'CustomResourceDefinition') {
      const webhook = m.spec.conversion.webhook ?? {};
      crds.push({
        ...m,
        spec: {
          ...m.spec,
          conversion: {
            ...m.spec.conversion,
            webhook: { ...webhook, clientConfig: pointAt(webhook.clientConfig, port, caBundle) },
          },
        },
      });
      installed.push(`CustomResourceDefinition/${name}`);
      continue;
    }
    const base = WEBHOOK_KINDS[m.kind ?? ''];
    if (!base) {
      throw new Error(
        `envtest: installWebhooks takes webhook configurations and conversion CRDs, got kind '${m.kind}' (${name})`,
      );
    }
    const body = {
      ...m,
      webhooks: (m.webhooks ?? []).map((w) => ({ ...w, clientConfig: pointAt(w.clientConfig, port, caBundle) })),
    };
    // Create, or replace an existing one whole: an apply would merge the new url into the old service clientConfig.
    let r = await request(target, 'POST', base, body);
    if (r.code === 409) {
      const live = await request(target, 'GET', `${base}/${name}`);
      r = await request(target, 'PUT', `${base}/${name}`, {
        ...body,
        metadata: {
          ...(body as { metadata?: object }).metadata,
          resourceVersion: live.body?.metadata?.resourceVersion,
        },
      });
    }
    if (r.code >= 300) {
      throw new Error(
        `envtest: installing ${m.kind} ${name} failed (${r.code}): ${r.body?.message ?? JSON.stringify(r.body)}`,
      );
    }
    installed.push(`${m.kind}/${name}`);
  }
  for (const crd of crds as { metadata: { name: string } }[]) {
    // Replaced whole, as the configurations: an apply would merge the url into the CRD's service clientConfig.
    const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    let r = await request(target, 'POST', base, crd);
    if (r.code === 409) {
      const live = await request(target, 'GET', `${base}/${crd.metadata.name}`);
      r = await request(target, 'PUT', `${base}/${crd.metadata.name}`, {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: live.body?.metadata?.resourceVersion },
      });
    }
    if (r.code >= 300) {
      throw new Error(
        `envtest: installing CRD ${crd.metadata.name} failed (${r.code}): ${r.body?.message ?? JSON.stringify(r.body)}`,
      );
    }
  }
  if (crds.length) await waitEstablished(target, crds, timeoutMs);
  return { bindAddress: `127.0.0.1:${port}`, port, certificate, caPem: ca.cert, installed };
}
