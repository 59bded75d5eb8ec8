/**
 * A throw-away self-signed serving certificate for 127.0.0.1 (made with the openssl CLI: Node cannot create
 * X.509 certificates). Needed only with `tls: true` — kubectl/client-go never send bearer tokens over plain HTTP.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServingCert {
  readonly key: string;
  readonly cert: string;
}

export function selfSignedCert(): ServingCert {
  const dir = mkdtempSync(join(tmpdir(), 'fake-apiserver-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')], { stdio: 'ignore', timeout: 30_000 });
    return { key: readFileSync(join(dir, 'tls.key'), 'utf8'), cert: readFileSync(join(dir, 'tls.crt'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
