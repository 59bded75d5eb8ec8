/**
 * X.509 for the webhook server: a self-signed CA and serving certificates it signs, for the
 * operator's Service DNS names (or 127.0.0.1 in envtest).
 *
 * Keys are RSA 2048 made by `node:crypto` (native; {@link generateCertificateKey} on the thread pool, so a webhook
 * server goes on answering meanwhile); `node-forge` builds the certificates, because Node can parse certificates
 * (`X509Certificate`) but not issue them, and `node:crypto` signs them (SHA-256; forge's RSA in JavaScript took
 * 0.2-0.4 s per signature on a loaded 2-core machine, Node's 1-13 ms). RSA rather than ECDSA: forge encodes RSA
 * keys only, and every apiserver verifies both.
 *
 * Guarantees: the CA has `basicConstraints CA:true, pathlen:0` and `keyCertSign`; a serving
 * certificate has `CA:false`, `digitalSignature, keyEncipherment`, `serverAuth`, and its names as
 * subjectAltNames (the apiserver ignores the CN); `notBefore` is back-dated 5 minutes for clock skew
 * (a tenth of the validity when that is shorter); PEM with LF line ends.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generateKeyPairSync,
  KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import type * as Forge from 'node-forge';
import type { ServingCertificate } from './certificate-source';

/**
 * node-forge, loaded on first use: a module-level import would make every controller bundle carry and
 * parse its 300 kB (the runtime's index re-exports this module, and esbuild keeps a module with an
 * import of a CommonJS package), about 4 MiB of resident memory in controllers without webhooks.
 */
let forgeModule: typeof Forge | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const forge = (): typeof Forge => (forgeModule ??= require('node-forge') as typeof Forge);

/** A certificate and its key (PEM). */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

/** Options of {@link createCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** @default 'cdk8s-operator-webhook-ca' */
  readonly commonName?: string;
  /** Validity from now. */
  readonly validityMs: number;
  /** @default - now */
  readonly now?: Date;
  /** The CA's key (RSA). @default - a new RSA 2048 key, made synchronously ({@link generateCertificateKey} makes one without blocking the event loop) */
  readonly privateKey?: KeyObject;
}

/** Options of {@link createServingCertificate}. */
export interface ServingCertificateOptions {
  /** DNS subjectAltNames, e.g. `sampledb-operator-webhook.sampledb-operator-system.svc`. */
  readonly dnsNames?: readonly string[];
  /** IP subjectAltNames, e.g. `127.0.0.1`. */
  readonly ipAddresses?: readonly string[];
  /** Validity from now (capped at the CA's expiry). */
  readonly validityMs: number;
  /** @default - now */
  readonly now?: Date;
  /** The certificate's key (RSA). @default - a new RSA 2048 key, made synchronously ({@link generateCertificateKey} makes one without blocking the event loop) */
  readonly privateKey?: KeyObject;
}

/** notBefore is back-dated for clock skew: 5 minutes, or a tenth of a short validity (tests use seconds). */
const skew = (validityMs: number) => Math.min(5 * 60_000, Math.floor(validityMs / 10));
/** forge writes CRLF; Node, the apiserver and this module's comparisons use LF. */
const lf = (pem: string) => pem.replace(/\r\n/g, '\n');

/**
 * A new RSA 2048 private key for {@link createCertificateAuthority} or {@link createServingCertificate}, made on
 * libuv's thread pool: a prime search takes 50 ms to seconds on a loaded machine, which the synchronous default
 * spends on the event loop.
 */
export function generateCertificateKey(): Promise<KeyObject> {
  return new Promise((resolve, reject) =>
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, _publicKey, privateKey) =>
      err ? reject(err) : resolve(privateKey),
    ),
  );
}

function keysOf(given: KeyObject | undefined): {
  privateKey: KeyObject;
  publicKey: Forge.pki.rsa.PublicKey;
  pem: string;
} {
  if (given && (given.type !== 'private' || given.asymmetricKeyType !== 'rsa')) {
    throw new Error(
      `privateKey: an RSA private key, not ${given.asymmetricKeyType ?? ''} ${given.type} (forge encodes RSA keys only)`,
    );
  }
  const privateKey = given ?? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    privateKey,
    publicKey: forge().pki.publicKeyFromPem(spki) as Forge.pki.rsa.PublicKey,
    pem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}

/** Signs what forge built with Node's crypto (sha256WithRSAEncryption), as forge's `cert.sign` would, natively. */
function signCertificate(cert: Forge.pki.Certificate, key: KeyObject): void {
  const oid = forge().pki.oids.sha256WithRSAEncryption;
  cert.signatureOid = oid;
  cert.siginfo.algorithmOid = oid;
  cert.tbsCertificate = (
    forge().pki as unknown as { getTBSCertificate(c: Forge.pki.Certificate): Forge.asn1.Asn1 }
  ).getTBSCertificate(cert);
  const tbs = Buffer.from(forge().asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
  cert.signature = sign('sha256', tbs, key).toString('binary');
}

function serialNumber(): string {
  // Positive 128-bit serial (high bit cleared), as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

/** A self-signed CA. */
export function createCertificateAuthority(options: CertificateAuthorityOptions): KeyPair {
  const now = options.now ?? new Date();
  const keys = keysOf(options.privateKey);
  const cert = forge().pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - skew(options.validityMs));
  cert.validity.notAfter = new Date(now.getTime() + options.validityMs);
  // UTF8String, as Kubernetes' own self-signed CAs (`<name>@<unix time>`): forge's default PrintableString
  // cannot hold '@', and Go's x509 (the apiserver) refuses such a certificate.
  const subject = [
    {
      name: 'commonName',
      value: `${options.commonName ?? 'cdk8s-operator-webhook-ca'}@${Math.floor(now.getTime() / 1000)}`,
      valueTagClass: forge().asn1.Type.UTF8 as any,
    },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signCertificate(cert, keys.privateKey);
  return { cert: lf(forge().pki.certificateToPem(cert)), key: lf(keys.pem) };
}

/** A serving certificate for `dnsNames`/`ipAddresses`, signed by `ca`. */
export function createServingCertificate(ca: KeyPair, options: ServingCertificateOptions): ServingCertificate {
  const names = [...(options.dnsNames ?? [])];
  const ips = [...(options.ipAddresses ?? [])];
  if (names.length + ips.length === 0) {
    throw new Error('a serving certificate needs at least one DNS name or IP address');
  }
  const now = options.now ?? new Date();
  const caCert = forge().pki.certificateFromPem(ca.cert);
  const keys = keysOf(options.privateKey);
  const cert = forge().pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - skew(options.validityMs));
  const expiry = Math.min(now.getTime() + options.validityMs, caCert.validity.notAfter.getTime());
  cert.validity.notAfter = new Date(expiry);
  cert.setSubject([{ name: 'commonName', value: names[0] ?? ips[0], valueTagClass: forge().asn1.Type.UTF8 as any }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...names.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  signCertificate(cert, createPrivateKey(ca.key));
  return { cert: lf(forge().pki.certificateToPem(cert)), key: lf(keys.pem) };
}

/** Every certificate in a PEM bundle, parsed by Node (order kept; junk between blocks ignored). */
export function parseCertificates(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new X509Certificate(block),
  );
}

/** Expiry of the first certificate of a PEM (undefined when there is none or it does not parse). */
export function notAfter(pem: string): Date | undefined {
  try {
    const [first] = parseCertificates(pem);
    return first ? new Date(first.validTo) : undefined;
  } catch {
    return undefined;
  }
}
