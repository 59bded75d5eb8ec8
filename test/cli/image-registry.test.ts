/**
 * `cdk8s-operator image` through a real registry: the base pulled from one and the result pushed to one, with the
 * credentials of a docker config; read back by an independent client (skopeo). The registry is Debian's
 * docker-registry (CNCF distribution 2.8) on a free loopback port, behind htpasswd basic auth: credentials from the
 * docker config's `auths`, or from a `credHelpers` entry (a user's docker-credential-<name> program, run by the CLI
 * as a process); a multi-platform base (a manifest list put with the registry API) pulled as its linux/amd64 image.
 * A second registry uses the token flow (`auth: token`): its realm is a test token issuer (test/support/token-issuer.ts)
 * whose log shows which tokens the CLI asked for and got.
 * Skipped with a line saying so when docker-registry or skopeo is missing; failed instead under ENVTEST_REQUIRED (CI).
 */
import { execFileSync, spawnSync } from 'child_process';
import { createHash, randomBytes } from 'crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { gunzipSync } from 'zlib';
import * as tar from 'tar-stream';
import { layerOf, writeImageArchive } from '../../cli/image/image-archive';
import { parseImageReference } from '../../cli/image/registry';
import { gitRevision } from '../../cli/image-command';
import { main } from '../../cli/main';
import { LocalRegistry, registryBinaries } from '../support/registry';

const ROOT = join(__dirname, '..', '..');
const { missing } = registryBinaries();
if (missing && process.env.ENVTEST_REQUIRED) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
if (missing) console.log(`image-registry: the real-registry tests are skipped: ${missing}`);
const describeRegistry = missing ? describe.skip : describe;
/** The user of both registries' credentials. */
const USER = 'ci-bot';

async function tarEntries(layer: Buffer): Promise<string[]> {
  const names: string[] = [];
  const extract = tar.extract();
  extract.on('entry', (h, stream, next) => {
    names.push(h.name);
    stream.on('end', next);
    stream.resume();
  });
  extract.end(layer);
  await new Promise<void>((resolve) => extract.on('finish', () => resolve()));
  return names;
}

/** The CLI's printed lines, and the working directory and DOCKER_CONFIG a suite changes, put back by `restore`. */
function cliSession() {
  const cwd = process.cwd();
  const savedDockerConfig = process.env.DOCKER_CONFIG;
  const lines: string[] = [];
  return {
    lines,
    log: (l: string) => {
      lines.push(l);
    },
    restore: () => {
      process.chdir(cwd);
      if (savedDockerConfig === undefined) delete process.env.DOCKER_CONFIG;
      else process.env.DOCKER_CONFIG = savedDockerConfig;
    },
  };
}

/** A distroless-like base (a fake node binary) as a docker-archive, for skopeo to push so our pull reads what another tool wrote. */
async function writeBaseArchive(file: string, config: Record<string, unknown>): Promise<void> {
  const baseLayer = await layerOf([{ path: '/nodejs/bin/node', content: Buffer.from('#!fake node'), mode: 0o755 }]);
  await writeImageArchive({ layers: [baseLayer], config, architecture: 'amd64', os: 'linux' }, ['base:1'], file);
}

/** The project `image` runs in (the current directory): a bundle and a package.json. */
function writeProject(pkg: Record<string, string>): void {
  mkdirSync('bundle');
  writeFileSync('bundle/controller.js', 'console.log("controller")');
  writeFileSync('package.json', JSON.stringify(pkg));
}

describeRegistry(
  'image: base pulled from and result pushed to a real registry (docker-registry), read back by skopeo',
  () => {
    const PASSWORD = 's3cret pass';
    let registry: LocalRegistry;
    let dir: string;
    const { lines, log, restore } = cliSession();

    beforeAll(async () => {
      registry = await LocalRegistry.start({ user: USER, password: PASSWORD });
    }, 30_000);
    afterAll(async () => {
      await registry?.stop();
    });

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'image-registry-'));
      process.chdir(dir);
      lines.length = 0;
      // the docker config a `docker login` / `skopeo login` writes: auths[host].auth = base64(user:password)
      mkdirSync(join(dir, 'docker'));
      writeFileSync(
        join(dir, 'docker', 'config.json'),
        JSON.stringify({ auths: { [registry.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } } }),
      );
      process.env.DOCKER_CONFIG = join(dir, 'docker');
      // the base, pushed by skopeo (Docker schema 2, gzipped layers)
      await writeBaseArchive(join(dir, 'base.tar'), { Env: ['PATH=/usr/bin'], User: '65532' });
      registry.skopeo(
        'copy',
        `docker-archive:${join(dir, 'base.tar')}`,
        `docker://${registry.host}/distroless/nodejs20:nonroot`,
      );
      writeProject({ name: 'widget-operator', repository: 'https://github.com/acme/widget-operator' });
    });
    afterEach(() => {
      restore();
      rmSync(dir, { recursive: true, force: true });
    });

    test('--base <registry image> --push: skopeo reads back the digest we print, our config (labels, base digest) and the bundle layer', async () => {
      const tag = `${registry.host}/acme/widget-operator:1.2.3`;
      const base = `${registry.host}/distroless/nodejs20:nonroot`;
      expect(await main(['image', '--base', base, '--tag', tag, '--revision', 'abc123', '--push'], log)).toBe(0);
      const baseDigest = JSON.parse(registry.skopeo('inspect', `docker://${base}`)).Digest;
      expect(lines[0]).toBe(`pulled ${base} ${baseDigest} (1 layers)`);
      const pushedLine = lines.find((l) => l.startsWith('pushed '))!;
      expect(pushedLine).toMatch(
        new RegExp(
          `^pushed ${tag.replace(/[.:/]/g, '\\$&')}@(sha256:[a-f0-9]{64}) \\(3 blobs uploaded, 0 already there, \\d+ ms\\)$`,
        ),
      );
      const digest = /@(sha256:[a-f0-9]{64})/.exec(pushedLine)![1];

      // skopeo: the manifest under the tag is the one we pushed, an OCI manifest with two gzipped layers
      const inspect = JSON.parse(registry.skopeo('inspect', `docker://${tag}`));
      expect(inspect.Digest).toBe(digest);
      const raw = JSON.parse(registry.skopeo('inspect', '--raw', `docker://${tag}`));
      expect(raw.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
      expect(raw.layers.map((l: { mediaType: string }) => l.mediaType)).toStrictEqual(
        Array(2).fill('application/vnd.oci.image.layer.v1.tar+gzip'),
      );
      expect(raw.annotations['org.opencontainers.image.base.digest']).toBe(baseDigest);
      const config = JSON.parse(registry.skopeo('inspect', '--config', `docker://${tag}`));
      expect(config.config).toMatchObject({
        User: '65532:65532',
        Entrypoint: ['/nodejs/bin/node', '/app/controller.js'],
      });
      expect(config.config.Labels).toMatchObject({
        'org.opencontainers.image.revision': 'abc123',
        'org.opencontainers.image.source': 'https://github.com/acme/widget-operator',
        'org.opencontainers.image.base.name': base,
        'org.opencontainers.image.base.digest': baseDigest,
      });

      // skopeo copies it out (checking every blob's digest); the last layer holds the bundle
      registry.skopeo('copy', `docker://${tag}`, `oci:${join(dir, 'copy')}:x`);
      const blobs = join(dir, 'copy', 'blobs', 'sha256');
      const layer = gunzipSync(readFileSync(join(blobs, raw.layers[1].digest.slice(7))));
      expect(await tarEntries(layer)).toStrictEqual(['app/', 'app/controller.js']);
      expect(readdirSync(blobs).length).toBe(4); // manifest, config, two layers

      // the same image again: every blob is skipped, the digest is the same
      lines.length = 0;
      expect(await main(['image', '--base', base, '--tag', tag, '--revision', 'abc123', '--push'], log)).toBe(0);
      expect(lines.find((l) => l.startsWith('pushed '))).toMatch(
        new RegExp(`@${digest} \\(0 blobs uploaded, 3 already there, `),
      );
    }, 60_000);

    test('the base defaults to --base-name, pulled; a pull without credentials says where they are looked up and how to log in', async () => {
      const tag = `${registry.host}/acme/widget-operator:2`;
      expect(
        await main(
          [
            'image',
            '--base-name',
            `${registry.host}/distroless/nodejs20:nonroot`,
            '--tag',
            tag,
            '--revision',
            'r',
            '--out',
            'w.tar',
          ],
          log,
        ),
      ).toBe(0);
      expect(lines[0]).toMatch(/^pulled .*distroless\/nodejs20:nonroot sha256:/);
      process.env.DOCKER_CONFIG = join(dir, 'nowhere');
      await expect(
        main(['image', '--base', `${registry.host}/distroless/nodejs20:nonroot`, '--tag', tag], log),
      ).rejects.toThrow(
        `image:\n  - --base: pulling ${registry.host}/distroless/nodejs20:nonroot: ${registry.host}/distroless/nodejs20:nonroot: the registry asks for credentials and ${join(dir, 'nowhere', 'config.json')} has none for ${registry.host} (log in with \`docker login ${registry.host}\``,
      );
      // wrong credentials: the registry's own answer, naming the config file used
      mkdirSync(join(dir, 'wrong'));
      writeFileSync(
        join(dir, 'wrong', 'config.json'),
        JSON.stringify({ auths: { [registry.host]: { auth: Buffer.from(`${USER}:nope`).toString('base64') } } }),
      );
      process.env.DOCKER_CONFIG = join(dir, 'wrong');
      await expect(
        main(['image', '--base', `${registry.host}/distroless/nodejs20:nonroot`, '--tag', tag], log),
      ).rejects.toThrow(
        /with the credentials of .*wrong\/config\.json\): HTTP 401 \(UNAUTHORIZED: authentication required/,
      );
    }, 60_000);

    test("credentials from the docker config's credHelpers entry: the user's docker-credential-<name> is asked for the host, and the push succeeds", async () => {
      // the user's credential helper (as docker-credential-ecr-login or -gcloud would be): a program on the PATH that
      // reads the host on stdin and answers {Username, Secret}; here it also notes which host it was asked for
      mkdirSync(join(dir, 'bin'));
      const asked = join(dir, 'asked');
      writeFileSync(
        join(dir, 'bin', 'docker-credential-s32test'),
        `#!/bin/sh\nread host\necho "$1 $host" >> ${asked}\nprintf '{"ServerURL":"%s","Username":"${USER}","Secret":"${PASSWORD}"}' "$host"\n`,
        { mode: 0o755 },
      );
      writeFileSync(
        join(dir, 'docker', 'config.json'),
        JSON.stringify({ credHelpers: { [registry.host]: 's32test' } }),
      );
      // the CLI as a user runs it: a process whose PATH has the helper (jest's process.env does not reach child processes)
      const cli = (...args: string[]) =>
        spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'cli', 'main.ts'), ...args], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, DOCKER_CONFIG: join(dir, 'docker') },
        });
      const tag = `${registry.host}/acme/widget-operator:helper`;
      const base = `${registry.host}/distroless/nodejs20:nonroot`;
      const pushed = cli('image', '--base', base, '--tag', tag, '--revision', 'h', '--push');
      expect([pushed.status, pushed.status === 0 ? '' : pushed.stderr]).toStrictEqual([0, '']);
      const digest = /^pushed \S+@(sha256:[a-f0-9]{64})/m.exec(pushed.stdout)![1];
      expect(JSON.parse(registry.skopeo('inspect', `docker://${tag}`)).Digest).toBe(digest);
      expect(new Set(readFileSync(asked, 'utf8').trim().split('\n'))).toStrictEqual(new Set([`get ${registry.host}`]));
    }, 120_000);

    test('a multi-platform base (a manifest list, arm64 listed first) is pulled as its linux/amd64 image', async () => {
      // two single-platform bases pushed by skopeo, then a Docker manifest list naming both, put with the registry API
      const platformBase = async (architecture: string) => {
        const layer = await layerOf([
          { path: '/nodejs/bin/node', content: Buffer.from(`node for ${architecture}`), mode: 0o755 },
        ]);
        const archive = join(dir, `base-${architecture}.tar`);
        await writeImageArchive(
          { layers: [layer], config: { User: '65532' }, architecture, os: 'linux' },
          [`base:${architecture}`],
          archive,
        );
        const ref = `${registry.host}/distroless/multi:${architecture}`;
        registry.skopeo('copy', `docker-archive:${archive}`, `docker://${ref}`);
        const raw = registry.skopeo('inspect', '--raw', `docker://${ref}`);
        return {
          mediaType: JSON.parse(raw).mediaType as string,
          digest: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
          size: Buffer.byteLength(raw),
          layer: JSON.parse(raw).layers[0].digest as string,
          platform: { architecture, os: 'linux' },
        };
      };
      const arm64 = await platformBase('arm64');
      const amd64 = await platformBase('amd64');
      const list = {
        schemaVersion: 2,
        mediaType: 'application/vnd.docker.distribution.manifest.list.v2+json',
        manifests: [arm64, amd64].map(({ mediaType, digest, size, platform }) => ({
          mediaType,
          digest,
          size,
          platform,
        })),
      };
      const put = await fetch(`http://${registry.host}/v2/distroless/multi/manifests/nonroot`, {
        method: 'PUT',
        headers: {
          'content-type': list.mediaType,
          authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
        },
        body: JSON.stringify(list),
      });
      expect(put.status).toBe(201);
      // skopeo sees an index of two platforms
      expect(
        JSON.parse(registry.skopeo('inspect', '--raw', `docker://${registry.host}/distroless/multi:nonroot`)).manifests,
      ).toHaveLength(2);

      const base = `${registry.host}/distroless/multi:nonroot`;
      const tag = `${registry.host}/acme/widget-operator:multi`;
      expect(await main(['image', '--base', base, '--tag', tag, '--revision', 'm', '--push'], log)).toBe(0);
      // the amd64 image's manifest digest, and its layer under the bundle's (skopeo reads the pushed image back)
      expect(lines[0]).toBe(`pulled ${base} ${amd64.digest} (1 layers)`);
      const pushed = JSON.parse(registry.skopeo('inspect', '--raw', `docker://${tag}`));
      const config = JSON.parse(registry.skopeo('inspect', '--config', `docker://${tag}`));
      expect([config.architecture, config.os]).toStrictEqual(['amd64', 'linux']);
      registry.skopeo('copy', `docker://${tag}`, `oci:${join(dir, 'multi')}:x`);
      const baseLayer = gunzipSync(
        readFileSync(join(dir, 'multi', 'blobs', 'sha256', pushed.layers[0].digest.slice(7))),
      );
      expect(baseLayer.toString('latin1')).toContain('node for amd64');
      expect(baseLayer.toString('latin1')).not.toContain('node for arm64');
      expect(amd64.layer).not.toBe(arm64.layer);
    }, 120_000);
  },
);

describeRegistry(
  'image through a registry that uses the token flow (auth: token, a token issuer as its realm), read back by skopeo',
  () => {
    const PASSWORD = 'token s3cret';
    let registry: LocalRegistry;
    let dir: string;
    const { lines, log, restore } = cliSession();
    const dockerConfig = (name: string, password?: string) => {
      mkdirSync(join(dir, name));
      const auths = password
        ? { [registry.host]: { auth: Buffer.from(`${USER}:${password}`).toString('base64') } }
        : {};
      writeFileSync(join(dir, name, 'config.json'), JSON.stringify({ auths }));
      process.env.DOCKER_CONFIG = join(dir, name);
    };

    beforeAll(async () => {
      registry = await LocalRegistry.start({ user: USER, password: PASSWORD, token: true });
      dir = mkdtempSync(join(tmpdir(), 'image-token-'));
      process.chdir(dir);
      // the base, pushed by skopeo (which gets its own token from the realm) to a private and a public repository
      await writeBaseArchive(join(dir, 'base.tar'), { User: '65532' });
      for (const repository of ['distroless/nodejs20', 'public/nodejs20']) {
        registry.skopeo(
          'copy',
          `docker-archive:${join(dir, 'base.tar')}`,
          `docker://${registry.host}/${repository}:nonroot`,
        );
      }
      writeProject({ name: 'widget-operator' });
      registry.issuer!.takeRequests();
    }, 90_000);
    beforeEach(() => {
      lines.length = 0;
      // each test sees the token requests of its own steps only (skopeo's included)
      registry.issuer!.takeRequests();
    });
    afterAll(async () => {
      restore();
      await registry?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test("the registry takes tokens only; the CLI gets one per repository and action from the realm with the docker config's credentials, pulls, pushes, and skopeo reads the digest back", async () => {
      // the registry itself: a Bearer challenge naming the realm and service, and Basic credentials refused
      const challenge = await fetch(`http://${registry.host}/v2/distroless/nodejs20/manifests/nonroot`, {
        headers: { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` },
      });
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get('www-authenticate')).toBe(
        `Bearer realm="${registry.issuer!.realm}",service="test-registry",scope="repository:distroless/nodejs20:pull"`,
      );

      dockerConfig('docker', PASSWORD);
      const base = `${registry.host}/distroless/nodejs20:nonroot`;
      const tag = `${registry.host}/acme/widget-operator:1.0.0`;
      expect(await main(['image', '--base', base, '--tag', tag, '--revision', 't', '--push'], log)).toBe(0);
      const digest = /^pushed \S+@(sha256:[a-f0-9]{64}) \(3 blobs uploaded, 0 already there/m.exec(
        lines.join('\n'),
      )![1];
      // one token for the base's pull and one for the image's push, each reused for every blob and manifest
      expect(registry.issuer!.takeRequests()).toStrictEqual([
        {
          account: USER,
          service: 'test-registry',
          scopes: ['repository:distroless/nodejs20:pull'],
          status: 200,
          granted: ['repository:distroless/nodejs20:pull'],
        },
        {
          account: USER,
          service: 'test-registry',
          scopes: ['repository:acme/widget-operator:pull,push'],
          status: 200,
          granted: ['repository:acme/widget-operator:pull,push'],
        },
      ]);

      // skopeo, with the same credentials and its own token, sees our digest and config
      expect(JSON.parse(registry.skopeo('inspect', `docker://${tag}`)).Digest).toBe(digest);
      const config = JSON.parse(registry.skopeo('inspect', '--config', `docker://${tag}`));
      expect(config.config.Entrypoint).toStrictEqual(['/nodejs/bin/node', '/app/controller.js']);
      expect(registry.issuer!.takeRequests().map((r) => [r.account, r.scopes])).toContainEqual([
        USER,
        ['repository:acme/widget-operator:pull'],
      ]);
    }, 60_000);

    test('a token that expires during a long push is fetched again on the 401, and the push goes on with the upload it had started', async () => {
      dockerConfig('refresh', PASSWORD);
      const base = `${registry.host}/distroless/nodejs20:nonroot`;
      const tag = `${registry.host}/acme/refresh-operator:1`;
      // a bundle of 5.6 MB that gzip cannot shrink below 4 MB: the upload of its layer is the long part of the push
      writeFileSync('bundle/big.js', `// ${randomBytes(4 << 20).toString('base64')}\n`);
      const realFetch = globalThis.fetch;
      // a slow network: the big layer's upload (a PUT to the location the registry gave) leaves only once the registry
      // refuses the token it carries; what the registry answered to each upload is noted with the token sent
      const uploads: { url: string; token: string; status: number }[] = [];
      let held = '';
      globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
        const url = String(input);
        const token = new Headers(init?.headers).get('authorization') ?? '';
        const upload = init?.method === 'PUT' && /\/blobs\/uploads\//.test(url);
        if (upload && !held && (init?.body as Buffer).length > 1 << 20) {
          held = url;
          const refused = async () =>
            (await realFetch(`http://${registry.host}/v2/`, { headers: { authorization: token } })).status === 401;
          for (const deadline = Date.now() + 60_000; !(await refused()); await new Promise((r) => setTimeout(r, 200))) {
            if (Date.now() > deadline) throw new Error('the registry still takes the token after 60 s');
          }
        }
        const res = await realFetch(input, init);
        if (upload) uploads.push({ url, token, status: res.status });
        return res;
      };
      registry.issuer!.setTokenSeconds(5);
      try {
        const args = ['image', '--base', base, '--bundle', 'bundle/big.js', '--tag', tag, '--revision', 'r', '--push'];
        expect(await main(args, log)).toBe(0);
      } finally {
        globalThis.fetch = realFetch;
        registry.issuer!.setTokenSeconds(300);
      }
      const digest = /^pushed \S+@(sha256:[a-f0-9]{64}) \(3 blobs uploaded, 0 already there/m.exec(
        lines.join('\n'),
      )![1];
      // the held upload: refused with the expired token, sent again to the same upload with a new one, stored; the
      // other two blobs stored at the first try
      const again = uploads.filter((u) => u.url === held);
      expect(again.map((u) => u.status)).toStrictEqual([401, 201]);
      expect(again[1].token).toMatch(/^Bearer /);
      expect(again[1].token).not.toBe(again[0].token);
      expect(uploads.filter((u) => u.url !== held).map((u) => u.status)).toStrictEqual([201, 201]);
      // the push's token was asked for again (more than once only if the machine is slow enough for another to expire)
      const pushTokens = registry
        .issuer!.takeRequests()
        .filter((r) => r.scopes[0] === 'repository:acme/refresh-operator:pull,push');
      expect(pushTokens.length).toBeGreaterThanOrEqual(2);
      expect(new Set(pushTokens.map((r) => [r.account, r.status, ...r.granted].join(' ')))).toStrictEqual(
        new Set([`${USER} 200 repository:acme/refresh-operator:pull,push`]),
      );
      // skopeo reads back what was pushed, the big layer included
      expect(JSON.parse(registry.skopeo('inspect', `docker://${tag}`)).Digest).toBe(digest);
      registry.skopeo('copy', `docker://${tag}`, `oci:${join(dir, 'refresh')}:x`);
    }, 90_000);

    test("without credentials: a public base is pulled with an anonymous token, a push says how to log in; wrong credentials: the token service's answer", async () => {
      dockerConfig('none');
      const tag = `${registry.host}/acme/widget-operator:anon`;
      const publicBase = `${registry.host}/public/nodejs20:nonroot`;
      expect(await main(['image', '--base', publicBase, '--tag', tag, '--revision', 'a', '--out', 'a.tar'], log)).toBe(
        0,
      );
      expect(lines[0]).toMatch(/^pulled .*public\/nodejs20:nonroot sha256:/);
      await expect(main(['image', '--base', publicBase, '--tag', tag, '--push'], log)).rejects.toThrow(
        `${tag}: the registry asks for credentials and ${join(dir, 'none', 'config.json')} has none for ${registry.host} (log in with`,
      );
      await expect(
        main(['image', '--base', `${registry.host}/distroless/nodejs20:nonroot`, '--tag', tag], log),
      ).rejects.toThrow(`the registry asks for credentials and ${join(dir, 'none', 'config.json')} has none`);
      const anonymous = (scope: string, granted: string[]) => ({
        service: 'test-registry',
        scopes: [scope],
        status: 200,
        granted,
      });
      expect(registry.issuer!.takeRequests()).toStrictEqual([
        anonymous('repository:public/nodejs20:pull', ['repository:public/nodejs20:pull']),
        anonymous('repository:public/nodejs20:pull', ['repository:public/nodejs20:pull']),
        anonymous('repository:acme/widget-operator:pull,push', []),
        anonymous('repository:distroless/nodejs20:pull', []),
      ]);

      dockerConfig('wrong', 'nope');
      await expect(main(['image', '--base', publicBase, '--tag', tag], log)).rejects.toThrow(
        `token from ${registry.issuer!.realm} (with the credentials of ${join(dir, 'wrong', 'config.json')}): HTTP 401 (UNAUTHORIZED: invalid username or password)`,
      );
    }, 60_000);
  },
);

describe('image references', () => {
  test('Docker Hub names, hosts with ports, tags and digests', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageReference('nginx')).toStrictEqual({
      registry: 'registry-1.docker.io',
      repository: 'library/nginx',
      reference: 'latest',
    });
    expect(parseImageReference('acme/app:1')).toStrictEqual({
      registry: 'registry-1.docker.io',
      repository: 'acme/app',
      reference: '1',
    });
    expect(parseImageReference('localhost:5000/my-operator:1.0.0')).toStrictEqual({
      registry: 'localhost:5000',
      repository: 'my-operator',
      reference: '1.0.0',
    });
    expect(parseImageReference(`gcr.io/distroless/nodejs20-debian12@${digest}`)).toStrictEqual({
      registry: 'gcr.io',
      repository: 'distroless/nodejs20-debian12',
      reference: digest,
    });
    expect(() => parseImageReference('Foo/Bar')).toThrow("'Foo/Bar' is not an image reference");
  });
});

describe("image labels come from the project's own git repository only", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'image-git-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd,
      encoding: 'utf8',
    }).trim();

  test("a project inside another repository gets no revision; a repository's top level gets its HEAD; no repository, none", () => {
    git(dir, 'init', '-q');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'enclosing');
    const project = join(dir, 'operator');
    mkdirSync(project);
    expect(gitRevision(project)).toBeUndefined();
    git(project, 'init', '-q');
    git(project, 'commit', '-q', '--allow-empty', '-m', 'own');
    expect(gitRevision(project)).toBe(git(project, 'rev-parse', 'HEAD'));
    expect(gitRevision(project)).not.toBe(git(dir, 'rev-parse', 'HEAD'));
    const outside = mkdtempSync(join(tmpdir(), 'image-nogit-'));
    try {
      expect(gitRevision(outside)).toBeUndefined();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
