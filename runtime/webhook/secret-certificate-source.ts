/**
 * Serving certificates read from the operator's certificate Secret by name: every replica serves
 * from it and reloads when it changes, whoever wrote it (the leader's `SelfManagedCertificates`, or
 * cert-manager).
 *
 * Expected flow: `start()` reads the Secret, then re-reads it every `reloadIntervalMs`; a changed
 * `tls.crt`/`tls.key` pair goes to the server (`setSecureContext`, no restart).
 *
 * Guarantees: needs only `get` on that one Secret (RBAC `resourceNames`), no list/watch of Secrets;
 * a missing Secret, missing keys or a read error keep the previous pair (and are logged once per
 * change of reason); `lastError` says why there is no certificate yet (shown by readiness).
 *
 * Caveats: a poll, not a watch (a watch by name needs `list`/`watch` on Secrets); with the default
 * 10 s a new certificate reaches every replica within ~10 s, which the rotation waits out (it serves
 * a certificate of a new CA only after the bundle holding that CA has been injected for longer).
 */
import type { KubeClient } from '../client';
import type { Logger } from '../log';
import { silentLogger } from '../log';
import type { KubeObject } from '../resource';
import { INJECTED_ANNOTATION } from './ca-injection';
import type { CertificateSource, ServingCertificate } from './certificate-source';

/** The Secret kind. @internal */
export const SECRET_REF = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' } as const;

/** Options of {@link SecretCertificateSource}. */
export interface SecretCertificateSourceOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly secretName: string;
  /** @default 10000 */
  readonly reloadIntervalMs?: number;
  /**
   * Serve a pair only once the Secret says its CA bundle was injected (`INJECTED_ANNOTATION`, written by
   * `SelfManagedCertificates` after injecting): readiness then means the apiserver can verify this server.
   * @default false
   */
  readonly requireInjected?: boolean;
  /** @default - silent */
  readonly logger?: Logger;
}

/** The serving pair stored in a Secret (`tls.crt`, `tls.key`), or undefined. @internal */
export function servingPairOf(secret: KubeObject | undefined): ServingCertificate | undefined {
  const data = (secret?.data ?? {}) as Record<string, string>;
  if (!data['tls.crt'] || !data['tls.key']) return undefined;
  return {
    cert: Buffer.from(data['tls.crt'], 'base64').toString('utf8'),
    key: Buffer.from(data['tls.key'], 'base64').toString('utf8'),
  };
}

/** See module docs. */
export class SecretCertificateSource implements CertificateSource {
  private pair: ServingCertificate | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(c: ServingCertificate) => void>();
  private readonly logger: Logger;
  /** Why there is no certificate (yet), for readiness. */
  public lastError: string | undefined = 'not read yet';

  constructor(private readonly options: SecretCertificateSourceOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  current(): ServingCertificate | undefined {
    return this.pair;
  }

  onChange(listener: (c: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    await this.reload();
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.reload().finally(() => {
          if (this.timer) tick();
        });
      }, this.options.reloadIntervalMs ?? 10_000);
      this.timer.unref?.();
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads the Secret now; announces a changed pair. Called by the poll, and by the leader right after it wrote. */
  async reload(): Promise<void> {
    const { client, namespace, secretName } = this.options;
    let reason: string | undefined;
    try {
      const secret = await client.get(SECRET_REF, secretName, namespace);
      const pair = servingPairOf(secret);
      if (!pair) {
        reason = `Secret ${namespace}/${secretName} has no tls.crt/tls.key yet`;
      } else if (this.options.requireInjected && !secret.metadata?.annotations?.[INJECTED_ANNOTATION]) {
        reason = `the CA bundle of Secret ${namespace}/${secretName} is not injected yet`;
      } else if (pair.cert !== this.pair?.cert || pair.key !== this.pair?.key) {
        this.pair = pair;
        for (const l of this.listeners) l(pair);
      }
    } catch (err) {
      reason = `reading Secret ${namespace}/${secretName}: ${(err as Error).message}`;
    }
    if (reason !== this.lastError && reason) this.logger.warn('webhook certificate not loaded', { reason });
    this.lastError = this.pair ? undefined : reason;
  }
}
