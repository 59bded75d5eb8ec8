/**
 * Where the webhook server's serving certificate comes from, and how it learns of a new one.
 *
 * Sources: {@link staticCertificate} (a fixed PEM pair: envtest, or a mounted file read once),
 * `SecretCertificateSource` (every replica reads the operator's certificate Secret by name and
 * reloads on change; see secret-certificate-source.ts). The server installs each new pair with
 * `tls.Server#setSecureContext`: open connections keep their session, new handshakes get the new
 * certificate, nothing restarts (controller-runtime's `certwatcher`, without files).
 */

/** A serving certificate (chain) and its private key, PEM. */
export interface ServingCertificate {
  /** PEM of the serving certificate, optionally followed by intermediates. */
  readonly cert: string;
  /** PEM of its private key. */
  readonly key: string;
}

/** Provides the current serving certificate and announces changes. */
export interface CertificateSource {
  /** The pair to serve now; undefined while there is none yet (the server is not ready then). */
  current(): ServingCertificate | undefined;
  /** Calls `listener` with every new pair; returns an unsubscribe function. */
  onChange(listener: (certificate: ServingCertificate) => void): () => void;
  /** Starts watching (called by the server's `start`). */
  start?(): Promise<void> | void;
  /** Why there is no certificate yet, if known (readiness shows it). */
  readonly lastError?: string;
  /** Stops watching (called by the server's `stop`). */
  stop?(): Promise<void> | void;
}

/** A source that never changes. */
export function staticCertificate(certificate: ServingCertificate): CertificateSource {
  return { current: () => certificate, onChange: () => () => undefined };
}
