/**
 * A real OCI registry for tests: Debian's `docker-registry` (the CNCF distribution registry 2.8) on a free loopback
 * port, plain HTTP, optionally behind htpasswd basic auth or the token flow (`auth: token`, with a {@link TokenIssuer} as
 * its realm), storage in a temporary folder. `skopeo` is the independent
 * client tests read pushed images back with. Both come from `apt-get install docker-registry skopeo` (the node
 * cluster's build-images.sh installs them).
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { freePort } from './free-port';
import { TokenIssuer } from './token-issuer';

/** The binaries a registry test needs, or what is missing. */
export function registryBinaries(): { missing?: string } {
  const missing = ['docker-registry', 'skopeo', 'openssl'].filter(
    (b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0,
  );
  return missing.length
    ? { missing: `${missing.join(' and ')} not on PATH (apt-get install docker-registry skopeo openssl)` }
    : {};
}

/** A running registry. */
export class LocalRegistry {
  /**
   * Starts one; with `user`/`password`, every request needs them: checked by the registry (htpasswd, bcrypt), or with
   * `token: true` by a token issuer that grants them everything (anonymous requests get `pull` under `public/`).
   */
  static async start(auth?: { user: string; password: string; token?: boolean }): Promise<LocalRegistry> {
    const dir = mkdtempSync(join(tmpdir(), 'registry-'));
    let authConfig = '';
    let issuer: TokenIssuer | undefined;
    if (auth?.token) {
      issuer = await TokenIssuer.start(dir, await freePort(), { [auth.user]: auth.password });
      authConfig = issuer.registryConfig();
    } else if (auth) {
      // bcrypt (cost 4: each request is checked against it) through libxcrypt (Debian's crypt(3)), which the registry's htpasswd reader accepts
      const hash = execFileSync(
        'python3',
        [
          '-W',
          'ignore',
          '-c',
          'import crypt,sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))',
          auth.password,
        ],
        { encoding: 'utf8' },
      ).trim();
      writeFileSync(join(dir, 'htpasswd'), `${auth.user}:${hash}\n`);
      authConfig = `auth:\n  htpasswd:\n    realm: test-registry\n    path: ${join(dir, 'htpasswd')}\n`;
    }
    // The port is chosen after the token issuer listens (a port free a moment ago is free again once freePort closes
    // it, so the issuer's could be handed out twice), and chosen again when something else bound it before the
    // registry did (rehearsal ZX: "bind: address already in use"; CI makes thousands of loopback connections).
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      writeFileSync(
        join(dir, 'config.yml'),
        `version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: ${join(dir, 'data')}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:${port}
${authConfig}`,
      );
      const proc = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      proc.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const registry = new LocalRegistry(proc, dir, `127.0.0.1:${port}`, auth, issuer);
      for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
        const status = await fetch(`http://127.0.0.1:${port}/v2/`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200 || status === 401) return registry;
        if (proc.exitCode !== null && attempt < 3 && stderr.includes('address already in use')) break;
        if (proc.exitCode !== null || Date.now() > deadline) {
          await registry.stop();
          throw new Error(`docker-registry did not start on 127.0.0.1:${port}: ${stderr.slice(-2000)}`);
        }
      }
    }
  }

  private constructor(
    private readonly proc: ChildProcess,
    private readonly dir: string,
    readonly host: string,
    readonly auth?: { user: string; password: string },
    /** The realm of a registry started with `token: true`. */
    readonly issuer?: TokenIssuer,
  ) {}

  /** `skopeo <args>` with this registry's credentials and plain HTTP; stdout. */
  skopeo(command: 'inspect' | 'copy', ...args: string[]): string {
    const tls = command === 'copy' ? ['--src-tls-verify=false', '--dest-tls-verify=false'] : ['--tls-verify=false'];
    const creds = this.auth
      ? command === 'copy'
        ? [
            '--src-creds',
            `${this.auth.user}:${this.auth.password}`,
            '--dest-creds',
            `${this.auth.user}:${this.auth.password}`,
          ]
        : ['--creds', `${this.auth.user}:${this.auth.password}`]
      : [];
    const r = spawnSync('skopeo', [command, ...tls, ...creds, ...args], {
      encoding: 'utf8',
      env: { ...process.env, REGISTRY_AUTH_FILE: join(this.dir, 'no-auth.json') },
    });
    if (r.status !== 0) throw new Error(`skopeo ${command} ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  async stop(): Promise<void> {
    await this.issuer?.stop();
    if (this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
