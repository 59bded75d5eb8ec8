/**
 * A tiny token issuer for the registry token flow of the distribution spec (test-only): what docker_auth, Harbor's
 * core or GitLab's JWT endpoint are to a registry run with `auth: token`. It answers `GET <realm>?service=…&scope=…`
 * (Basic credentials optional) with `{"token": <JWT>}`, a JWT signed with RS256 by a key whose self-signed certificate
 * is the registry's `rootcertbundle` and travels in the JWT's `x5c` header, the way the registry verifies it
 * (distribution's registry/auth/token).
 *
 * Who gets what: a user with the right password gets every action asked for; a request without credentials gets
 * `pull` on repositories under `public/` and nothing else (as Docker Hub hands out an empty token for a private
 * repository); wrong credentials get `401`. Every request is appended to a log file the test reads.
 *
 * Lifetime: the registry takes a token for `tokenSeconds` (300 unless {@link TokenIssuer.setTokenSeconds} says
 * otherwise, read at every request), and `expires_in` says so. distribution's registry accepts a token until 60 s after
 * its `exp` (`token.Leeway`, for clock skew), so `exp` is set that much earlier.
 *
 * It runs as its own process (`tsx token-issuer.ts <config.json>`), because tests call skopeo synchronously and
 * skopeo asks the realm for its tokens too.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import { createPrivateKey, randomUUID, sign, X509Certificate } from 'crypto';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'fs';
import { createServer } from 'http';
import { join } from 'path';

/** What the issuer process reads from its config file. */
interface IssuerConfig {
  readonly port: number;
  readonly issuer: string;
  readonly service: string;
  readonly keyFile: string;
  readonly certFile: string;
  readonly logFile: string;
  readonly users: Record<string, string>;
  /** How long the registry takes a token. @default 300 */
  readonly tokenSeconds?: number;
}

/** distribution's registry/auth/token Leeway: it takes a token until this long after its `exp`. */
const REGISTRY_LEEWAY_SECONDS = 60;

/** One request the issuer answered, as logged. */
export interface TokenRequest {
  /** The user of the Basic credentials, or undefined for an anonymous request. */
  readonly account?: string;
  readonly service: string | null;
  readonly scopes: readonly string[];
  readonly status: number;
  /** `repository:<name>:<actions>` granted, one per scope that got any action. */
  readonly granted: readonly string[];
}

const base64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** The actions `account` gets for one `repository:<name>:<actions>` scope. */
function grant(scope: string, account: string | undefined): { name: string; actions: string[] } | undefined {
  const m = /^repository:([^:]+):(.+)$/.exec(scope);
  if (!m) return undefined;
  const asked = m[2].split(',');
  const actions = account ? asked : m[1].startsWith('public/') ? asked.filter((a) => a === 'pull') : [];
  return { name: m[1], actions };
}

function serve(configFile: string): void {
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as IssuerConfig;
  const key = createPrivateKey(readFileSync(config.keyFile));
  const certDer = new X509Certificate(readFileSync(config.certFile)).raw.toString('base64');
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const scopes = url.searchParams.getAll('scope').flatMap((s) => s.split(' '));
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    const [user, password] = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(/:(.*)/s) : [];
    const log = (entry: TokenRequest) => appendFileSync(config.logFile, `${JSON.stringify(entry)}\n`);
    const service = url.searchParams.get('service');
    if (url.pathname !== '/token') {
      res.writeHead(404).end();
      return;
    }
    if (basic && config.users[user] !== password) {
      log({ account: user, service, scopes, status: 401, granted: [] });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'invalid username or password' }] }));
      return;
    }
    const account = basic ? user : undefined;
    const access = scopes
      .map((s) => grant(s, account))
      .filter((a): a is { name: string; actions: string[] } => a !== undefined && a.actions.length > 0)
      .map((a) => ({ type: 'repository', ...a }));
    const tokenSeconds = (JSON.parse(readFileSync(configFile, 'utf8')) as IssuerConfig).tokenSeconds ?? 300;
    const now = Math.floor(Date.now() / 1000);
    const header = { typ: 'JWT', alg: 'RS256', x5c: [certDer] };
    const claims = {
      iss: config.issuer,
      sub: account ?? '',
      aud: service ?? '',
      exp: now + tokenSeconds - REGISTRY_LEEWAY_SECONDS,
      nbf: now - 10,
      iat: now,
      jti: randomUUID(),
      access,
    };
    const signed = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const token = `${signed}.${base64url(sign('sha256', Buffer.from(signed), key))}`;
    log({
      account,
      service,
      scopes,
      status: 200,
      granted: access.map((a) => `repository:${a.name}:${a.actions.join(',')}`),
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ token, access_token: token, expires_in: tokenSeconds, issued_at: new Date().toISOString() }),
    );
  });
  server.listen(config.port, '127.0.0.1');
}

/** A running issuer: its realm, the names the registry must trust, and the log of what it answered. */
export class TokenIssuer {
  /**
   * Starts one on `port` with a fresh RSA key and self-signed certificate (openssl) in `dir`; `users` maps user
   * names to passwords.
   */
  static async start(dir: string, port: number, users: Record<string, string>): Promise<TokenIssuer> {
    const keyFile = join(dir, 'token.key');
    const certFile = join(dir, 'token.crt');
    // the registry checks that the x5c leaf may sign (keyUsage digitalSignature) and is in the bundle
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=test-token-issuer',
        '-addext',
        'keyUsage=critical,digitalSignature',
      ],
      { stdio: 'pipe' },
    );
    const config: IssuerConfig = {
      port,
      issuer: 'test-token-issuer',
      service: 'test-registry',
      keyFile,
      certFile,
      logFile: join(dir, 'token-requests.jsonl'),
      users,
    };
    writeFileSync(config.logFile, '');
    const configFile = join(dir, 'issuer.json');
    writeFileSync(configFile, JSON.stringify(config));
    const tsx = join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
    const proc = spawn(tsx, [__filename, configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const issuer = new TokenIssuer(proc, config, configFile);
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const status = await fetch(`${issuer.realm}?service=probe`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (proc.exitCode !== null || Date.now() > deadline) {
        await issuer.stop();
        throw new Error(`the token issuer did not start on 127.0.0.1:${port}: ${stderr.slice(-2000)}`);
      }
    }
    writeFileSync(config.logFile, '');
    return issuer;
  }

  readonly realm: string;

  private constructor(
    private readonly proc: ChildProcess,
    private readonly config: IssuerConfig,
    private readonly configFile: string,
  ) {
    this.realm = `http://127.0.0.1:${config.port}/token`;
  }

  /** The registry's `auth.token` section. */
  registryConfig(): string {
    return [
      'auth:',
      '  token:',
      `    realm: ${this.realm}`,
      `    service: ${this.config.service}`,
      `    issuer: ${this.config.issuer}`,
      `    rootcertbundle: ${this.config.certFile}`,
      '',
    ].join('\n');
  }

  /** The tokens issued from now on are taken by the registry for `seconds` (short ones expire during a push). */
  setTokenSeconds(seconds: number): void {
    // renamed into place: the issuer never reads a half-written file
    writeFileSync(`${this.configFile}.new`, JSON.stringify({ ...this.config, tokenSeconds: seconds }));
    renameSync(`${this.configFile}.new`, this.configFile);
  }

  /** The requests answered since the last call. */
  takeRequests(): TokenRequest[] {
    const lines = readFileSync(this.config.logFile, 'utf8').split('\n').filter(Boolean);
    writeFileSync(this.config.logFile, '');
    return lines.map((l) => JSON.parse(l) as TokenRequest);
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      await exited;
    }
  }
}

if (require.main === module) serve(process.argv[2]);
