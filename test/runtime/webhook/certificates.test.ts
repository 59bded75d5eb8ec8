import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  createCertificateAuthority,
  createServingCertificate,
  generateCertificateKey,
} from '../../../runtime/webhook/certificates';

const DAY = 86_400_000;
const publicPem = (key: KeyObject) =>
  (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'pem' }).toString();

describe('webhook certificates (node-forge builds them, node:crypto signs them)', () => {
  test('a CA and a serving certificate it signed, each with its own key, as openssl verifies them', () => {
    const ca = createCertificateAuthority({ validityMs: 365 * DAY, commonName: 'op-webhook-cert.op-system' });
    const serving = createServingCertificate(ca, { dnsNames: ['op-webhook.op-system.svc'], validityMs: 90 * DAY });
    const caCert = new X509Certificate(ca.cert);
    const servingCert = new X509Certificate(serving.cert);
    expect(caCert.ca).toBe(true);
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(caCert.checkPrivateKey(createPrivateKey(ca.key))).toBe(true);
    expect(servingCert.ca).toBe(false);
    expect(servingCert.checkIssued(caCert)).toBe(true);
    expect(servingCert.verify(caCert.publicKey)).toBe(true);
    expect(servingCert.checkPrivateKey(createPrivateKey(serving.key))).toBe(true);
    expect(servingCert.subjectAltName).toBe('DNS:op-webhook.op-system.svc');

    // an independent verifier: openssl, with the CA as the only trust anchor and the serving purpose
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certs-'));
    try {
      fs.writeFileSync(path.join(dir, 'ca.crt'), ca.cert);
      fs.writeFileSync(path.join(dir, 'tls.crt'), serving.cert);
      const out = execFileSync(
        'openssl',
        [
          'verify',
          '-x509_strict',
          '-purpose',
          'sslserver',
          '-CAfile',
          path.join(dir, 'ca.crt'),
          path.join(dir, 'tls.crt'),
        ],
        { encoding: 'utf8' },
      );
      expect(out.trim()).toBe(`${path.join(dir, 'tls.crt')}: OK`);
      const text = execFileSync('openssl', ['x509', '-noout', '-text', '-in', path.join(dir, 'tls.crt')], {
        encoding: 'utf8',
      });
      expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
      expect(text).toContain('Public-Key: (2048 bit)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a key made beforehand (on the thread pool) is the one certified', async () => {
    const [caKey, servingKey] = await Promise.all([generateCertificateKey(), generateCertificateKey()]);
    const ca = createCertificateAuthority({ validityMs: DAY, privateKey: caKey });
    const serving = createServingCertificate(ca, {
      ipAddresses: ['127.0.0.1'],
      validityMs: DAY,
      privateKey: servingKey,
    });
    expect(publicPem(new X509Certificate(ca.cert).publicKey)).toBe(publicPem(caKey));
    expect(publicPem(new X509Certificate(serving.cert).publicKey)).toBe(publicPem(servingKey));
    expect(publicPem(createPrivateKey(serving.key))).toBe(publicPem(servingKey));
    expect(new X509Certificate(serving.cert).verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
  });

  test('a key that is not an RSA private key is refused, saying what it is', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => createCertificateAuthority({ validityMs: DAY, privateKey })).toThrow(
      'privateKey: an RSA private key, not ec private (forge encodes RSA keys only)',
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(() => createCertificateAuthority({ validityMs: DAY, privateKey: rsa.publicKey })).toThrow(
      'privateKey: an RSA private key, not rsa public',
    );
    expect(publicKey.type).toBe('public');
  });
});
