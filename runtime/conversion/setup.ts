/**
 * Wires conversion into a manager: the conversion handler on its webhook server (every replica), and on
 * the leader the webhook's certificates (CA bundle injected into each converted CRD) and the storage
 * version migration of each converted kind. `startControllerBinary` calls it for `ControllerBinary.conversions`.
 *
 * Guarantees: the contract (when the manager has one) must declare every kind in `contract.conversion`,
 * checked before anything starts; a missing environment variable fails the start-up naming it.
 *
 * Caveats: the webhook Service must route to pods that are not Ready yet (`publishNotReadyAddresses`, as the
 * chart's Operator sets it): the manager's readiness waits for its informers, and listing a kind whose objects
 * are stored at another version needs this very webhook.
 */
import { KubeClient, RestClient } from '../client';
import { assertContractGrants } from '../contract';
import { loadDefaultConnection } from '../kubeconfig';
import { Logger } from '../log';
import type { ManagerOptions } from '../manager';
import { Manager } from '../manager';
import { parseApiVersion, ResourceRef } from '../resource';
import { conversionHandler } from './conversion-review';
import { KindConversion } from './define-conversion';
import { MigrationClient, storageMigrationRunnable } from './storage-migrator';
import { SecretCertificateSource } from '../webhook/secret-certificate-source';
import { SelfManagedCertificates } from '../webhook/self-managed-certificates';
import { IN_CLUSTER_WEBHOOK_SHUTDOWN_DELAY_MS, webhookSettingsFromEnv } from '../webhook/webhook-settings';

/** One converted kind: its conversions and the kind at the hub version (with its plural), as the controller reads it. */
export interface ServedConversion {
  readonly conversion: KindConversion;
  readonly resource: ResourceRef;
}

/** Where the webhook is served from, as the chart's environment says. */
export interface WebhookEnvironment {
  /** The operator's namespace (`POD_NAMESPACE`). */
  readonly namespace: string;
  /** The webhook Service (`WEBHOOK_SERVICE`): the serving certificate names it. */
  readonly serviceName: string;
  /** The certificate Secret (`WEBHOOK_CERT_SECRET`), created empty by the chart. */
  readonly secretName: string;
  /** `WEBHOOK_BIND_ADDRESS`. @default ':9443' */
  readonly bindAddress: string;
}

/** Reads {@link WebhookEnvironment}; throws naming every missing variable. */
export function webhookEnvironment(env: NodeJS.ProcessEnv): WebhookEnvironment {
  const missing = ['POD_NAMESPACE', 'WEBHOOK_SERVICE', 'WEBHOOK_CERT_SECRET'].filter((k) => !env[k]);
  if (missing.length) {
    throw new Error(
      `conversion webhook: environment ${missing.join(', ')} not set (the chart's Operator sets them for contract.conversion)`,
    );
  }
  return {
    namespace: env.POD_NAMESPACE!,
    serviceName: env.WEBHOOK_SERVICE!,
    secretName: env.WEBHOOK_CERT_SECRET!,
    bindAddress: env.WEBHOOK_BIND_ADDRESS || ':9443',
  };
}

/** Options of {@link setupConversion}. */
export interface SetupConversionOptions extends WebhookEnvironment {
  readonly conversions: readonly ServedConversion[];
  /** The source the manager's webhook server serves from (reloaded at once after the leader wrote the Secret). */
  readonly certificates: SecretCertificateSource;
  /** Between storage migration passes. @default 300000 */
  readonly migrationIntervalMs?: number;
  /**
   * Whether the storage migration uses Kubernetes' in-tree StorageVersionMigration where the cluster serves it
   * (docs/storage-migration.md); `false` always rewrites the objects in the operator.
   * @default true
   */
  readonly inTreeMigration?: boolean;
  /** IP addresses the serving certificate names too (envtest: `127.0.0.1`). @default [] */
  readonly ipAddresses?: readonly string[];
}

/** The CRD name of a converted kind: `<plural>.<group>`. */
export function crdNameOf(c: ServedConversion): string {
  if (!c.resource.plural) throw new Error(`conversion of ${c.resource.kind}: its resource needs a plural`);
  return `${c.resource.plural}.${parseApiVersion(c.resource.apiVersion).group}`;
}

/** See module docs. */
export function setupConversion(manager: Manager, options: SetupConversionOptions): void {
  const server = manager.webhookServer;
  if (!server) throw new Error('setupConversion: the manager has no webhook server (ManagerOptions.webhookServer)');
  if (manager.contract) {
    assertContractGrants(
      'conversion',
      manager.contract,
      options.conversions.map((c) => ({ use: 'conversion' as const, resource: c.resource })),
    );
  }
  server.conversion(conversionHandler(options.conversions.map((c) => c.conversion)));
  const { namespace, serviceName } = options;
  // One CA for the whole webhook server: the admission webhook configurations the chart names (WEBHOOK_CA_INJECT)
  // get the same bundle as the converted CRDs, with the same validities.
  const admission = webhookSettingsFromEnv(process.env);
  const certificates = new SelfManagedCertificates({
    client: manager.client,
    namespace,
    secretName: options.secretName,
    dnsNames: [
      serviceName,
      `${serviceName}.${namespace}`,
      `${serviceName}.${namespace}.svc`,
      `${serviceName}.${namespace}.svc.cluster.local`,
    ],
    ipAddresses: options.ipAddresses,
    targets: [
      ...options.conversions.map((c) => ({ kind: 'CustomResourceDefinition' as const, name: crdNameOf(c) })),
      ...(admission?.certificates === 'self-managed' ? admission.inject : []),
    ],
    caValidityMs: admission?.caValidityMs,
    servingValidityMs: admission?.servingValidityMs,
    checkIntervalMs: admission?.checkIntervalMs,
    caPropagationMs: admission?.caPropagationMs,
    onSecretWritten: () => options.certificates.reload(),
    logger: manager.logger.child({ component: 'webhook-certificates' }),
  });
  manager.addLeaderRunnable({
    name: 'webhook-certificates',
    start: () => {
      void certificates.start();
    },
    stop: () => certificates.stop(),
  });
  // the in-tree migration's steps as Events about the CRD, where the contract grants events (or there is no contract)
  const recorder =
    !manager.contract || manager.contract.events ? manager.eventRecorder('storage-version-migration') : undefined;
  for (const c of options.conversions) {
    manager.addLeaderRunnable(
      storageMigrationRunnable({
        client: migrationClient(manager.client),
        crdName: crdNameOf(c),
        resource: c.resource,
        registry: manager.metrics.registry,
        logger: manager.logger.child({ component: 'storage-migration' }),
        intervalMs: options.migrationIntervalMs,
        inTree: options.inTreeMigration,
        recorder,
      }),
    );
  }
}

function migrationClient(client: KubeClient): MigrationClient {
  if (!(client instanceof RestClient)) {
    throw new Error("storage version migration needs the manager's RestClient (paged lists)");
  }
  return client;
}

/**
 * Conversion for a controller binary (`ControllerBinary.managerOptions` and a call in its `setup`): reads the
 * webhook environment the chart sets; without it (a controller run from a laptop) it warns and the binary runs
 * without conversion or migration (requests needing a version other than the stored one then fail).
 */
export function conversionBinary(conversions: readonly ServedConversion[]): {
  managerOptions(logger: Logger): Partial<ManagerOptions>;
  setup(manager: Manager): void;
} {
  let wiring: { env: WebhookEnvironment; certificates: SecretCertificateSource } | undefined;
  return {
    managerOptions(logger) {
      let env: WebhookEnvironment;
      try {
        env = webhookEnvironment(process.env);
      } catch (err) {
        logger.warn(`conversion not served: ${(err as Error).message}`);
        return {};
      }
      const admission = webhookSettingsFromEnv(process.env);
      const certificates = new SecretCertificateSource({
        client: RestClient.fromKubeConfig(loadDefaultConnection()),
        namespace: env.namespace,
        secretName: env.secretName,
        reloadIntervalMs: admission?.reloadIntervalMs,
        requireInjected: true,
        logger: logger.child({ component: 'webhook-certificates' }),
      });
      wiring = { env, certificates };
      return {
        webhookServer: {
          certificates,
          bindAddress: env.bindAddress,
          shutdownDelayMs: IN_CLUSTER_WEBHOOK_SHUTDOWN_DELAY_MS,
        },
      };
    },
    setup(manager) {
      if (wiring) setupConversion(manager, { ...wiring.env, conversions, certificates: wiring.certificates });
    },
  };
}
