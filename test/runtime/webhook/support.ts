import * as https from 'https';
import type { CertificateSource, ServingCertificate } from '../../../runtime/webhook/certificate-source';
import { createCertificateAuthority, createServingCertificate, KeyPair } from '../../../runtime/webhook/certificates';

/** A CA and a serving certificate for 127.0.0.1 / localhost. */
export function localCertificates(validityMs = 3_600_000): { ca: KeyPair; serving: ServingCertificate } {
  const ca = createCertificateAuthority({ validityMs });
  return {
    ca,
    serving: createServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityMs }),
  };
}

/** A certificate source a test can swap. */
export class SwappableSource implements CertificateSource {
  private readonly listeners = new Set<(c: ServingCertificate) => void>();
  constructor(private pair: ServingCertificate | undefined) {}
  current(): ServingCertificate | undefined {
    return this.pair;
  }
  onChange(listener: (c: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(pair: ServingCertificate): void {
    this.pair = pair;
    for (const l of this.listeners) l(pair);
  }
}

/** POSTs JSON over HTTPS trusting only `ca`; a fresh connection each time (no agent). */
export function post(
  address: string,
  path: string,
  body: unknown,
  ca: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host,
        port: Number(port),
        path,
        method: 'POST',
        ca,
        agent: false,
        headers: { 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** An AdmissionReview as the apiserver sends it. */
export function review(request: Record<string, unknown>): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'database.example.com', version: 'v1', kind: 'SampleDB' },
      resource: { group: 'database.example.com', version: 'v1', resource: 'sampledbs' },
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      ...request,
    },
  };
}
