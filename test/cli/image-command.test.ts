import { createHash } from 'crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { gzipSync } from 'zlib';
import { Chart, Testing } from 'cdk8s';
import * as tar from 'tar-stream';
import * as yaml from 'yaml';
import { layerOf, readDockerArchive, writeImageArchive } from '../../cli/image/image-archive';
import { main } from '../../cli/main';
import { CustomResourceDefinition, Operator, Schema } from '../../lib';

async function entriesOf(tarball: Buffer): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (h, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      out.set(h.name, Buffer.concat(chunks));
      next();
    });
  });
  extract.end(tarball);
  await new Promise<void>((resolve) => extract.on('finish', () => resolve()));
  return out;
}

/** The OCI manifest and config of an image tarball (through its index.json, as OCI tools read it). */
async function ociImage(
  file: string,
): Promise<{ digest: string; manifest: any; config: any; entries: Map<string, Buffer> }> {
  const entries = await entriesOf(readFileSync(file));
  const index = JSON.parse(entries.get('index.json')!.toString());
  const digest = index.manifests[0].digest;
  const manifest = JSON.parse(entries.get(`blobs/sha256/${digest.slice(7)}`)!.toString());
  const config = JSON.parse(entries.get(`blobs/sha256/${manifest.config.digest.slice(7)}`)!.toString());
  return { digest, manifest, config, entries };
}

/** A chart with the library's Operator, synthesized into `dir` as YAML (what `npm run synth` writes). */
function synthChart(dir: string, image: string): void {
  const chart = new Chart(Testing.app(), 'widgets');
  const crd = new CustomResourceDefinition(chart, 'Widget', {
    group: 'image.example.com',
    kind: 'Widget',
    versions: [{ name: 'v1', spec: Schema.object({ properties: { size: Schema.integer() } }) }],
  });
  new Operator(chart, 'widget-operator', { crds: [crd], image, contract: { watches: [crd], leaderElection: true } });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'widgets.k8s.yaml'),
    Testing.synth(chart)
      .map((o) => yaml.stringify(o))
      .join('---\n'),
  );
}

describe('cdk8s-operator image', () => {
  let dir: string;
  let base: string;
  const cwd = process.cwd();
  const lines: string[] = [];
  const log = (l: string) => lines.push(l);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'image-cmd-'));
    process.chdir(dir);
    lines.length = 0;
    // a base like distroless Node: the node binary and a non-root default user
    const baseLayer = await layerOf([{ path: '/nodejs/bin/node', content: Buffer.from('#!fake node'), mode: 0o755 }]);
    base = join(dir, 'base.tar');
    await writeImageArchive(
      { layers: [baseLayer], config: { Env: ['PATH=/usr/bin'], User: '65532' }, architecture: 'amd64', os: 'linux' },
      ['base:1'],
      base,
    );
    mkdirSync('bundle');
    writeFileSync('bundle/controller.js', 'console.log("controller")');
    writeFileSync('bundle/controller.js.map', '{}');
    writeFileSync(
      'package.json',
      JSON.stringify({
        name: 'widget-operator',
        repository: { type: 'git', url: 'git+https://github.com/acme/widget-operator.git' },
      }),
    );
    synthChart(join(dir, 'dist'), 'ghcr.io/acme/widget-operator:1.2.3');
  });
  afterEach(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  test("the bundle on the base, tagged, run as and exposed like the chart's Deployment, with the entrypoint its args follow and OCI annotations", async () => {
    expect(await main(['image', '--base', base, '--revision', 'abc123'], log)).toBe(0);

    const out = join(dir, 'images', 'widget-operator.tar');
    const { manifest, config, entries } = await ociImage(out);
    // the docker-archive view of the same file: tagged as the chart references it
    expect(JSON.parse(entries.get('manifest.json')!.toString())[0].RepoTags).toStrictEqual([
      'ghcr.io/acme/widget-operator:1.2.3',
    ]);
    expect(config.config).toMatchObject({
      User: '65532:65532',
      WorkingDir: '/app',
      Entrypoint: ['/nodejs/bin/node', '/app/controller.js'],
      ExposedPorts: { '8081/tcp': {}, '8080/tcp': {} },
      Env: ['PATH=/usr/bin', 'NODE_ENV=production'],
    });
    const annotations = {
      'org.opencontainers.image.source': 'https://github.com/acme/widget-operator',
      'org.opencontainers.image.revision': 'abc123',
      'org.opencontainers.image.version': '1.2.3',
      'org.opencontainers.image.title': 'widget-operator',
      'org.opencontainers.image.base.name': 'gcr.io/distroless/nodejs20-debian12:nonroot',
      'org.opencontainers.image.created': '1970-01-01T00:00:00.000Z',
    };
    expect(manifest.annotations).toMatchObject(annotations);
    expect(config.config.Labels).toMatchObject(annotations);
    // one layer on the base's: the bundle and its map, root-owned (read-only for the non-root user)
    const image = await readDockerArchive(out);
    expect(image.layers).toHaveLength(2);
    const files = await entriesOf(image.layers[1]);
    expect([...files.keys()]).toStrictEqual(['app/', 'app/controller.js', 'app/controller.js.map']);
    expect(lines[0]).toMatch(
      /^ghcr\.io\/acme\/widget-operator:1\.2\.3 sha256:[0-9a-f]{64} \(image id sha256:[0-9a-f]{64}\) → images\/widget-operator\.tar/,
    );
  });

  test('reproducible: the same inputs give the same digest; another bundle, another digest', async () => {
    await main(['image', '--base', base, '--revision', 'r1', '--out', 'a.tar'], log);
    await main(['image', '--base', base, '--revision', 'r1', '--out', 'b.tar'], log);
    expect(readFileSync(join(dir, 'a.tar')).equals(readFileSync(join(dir, 'b.tar')))).toBe(true);
    const a = await ociImage(join(dir, 'a.tar'));
    expect(a.digest).toBe((await ociImage(join(dir, 'b.tar'))).digest);

    writeFileSync('bundle/controller.js', 'console.log("controller v2")');
    await main(['image', '--base', base, '--revision', 'r1', '--out', 'c.tar'], log);
    expect((await ociImage(join(dir, 'c.tar'))).digest).not.toBe(a.digest);
  });

  test('--tag overrides the chart; BASE_IMAGE_TAR gives the base; --node-option goes before the bundle', async () => {
    process.env.BASE_IMAGE_TAR = base;
    try {
      await main(
        ['image', '--tag', 'registry.local:5000/w:0.0.1', '--node-option', '--max-semi-space-size=2', '--out', 'x.tar'],
        log,
      );
    } finally {
      delete process.env.BASE_IMAGE_TAR;
    }
    const { config, entries } = await ociImage(join(dir, 'x.tar'));
    expect(JSON.parse(entries.get('manifest.json')!.toString())[0].RepoTags).toStrictEqual([
      'registry.local:5000/w:0.0.1',
    ]);
    expect(config.config.Entrypoint).toStrictEqual([
      '/nodejs/bin/node',
      '--max-semi-space-size=2',
      '/app/controller.js',
    ]);
  });

  test('a base given as an OCI image layout with gzipped layers (skopeo oci-archive, crane) works as well', async () => {
    const layer = await layerOf([{ path: '/nodejs/bin/node', content: Buffer.from('#!fake node'), mode: 0o755 }]);
    const gz = gzipSync(layer);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const configBlob = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { User: '65532' },
        rootfs: { type: 'layers', diff_ids: [`sha256:${sha(layer)}`] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        config: { digest: `sha256:${sha(configBlob)}` },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${sha(gz)}` }],
      }),
    );
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: `sha256:${sha(manifest)}` }],
      }),
    );
    const pack = tar.pack();
    for (const [name, content] of [
      ['oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}')],
      ['index.json', index],
      [`blobs/sha256/${sha(manifest)}`, manifest],
      [`blobs/sha256/${sha(configBlob)}`, configBlob],
      [`blobs/sha256/${sha(gz)}`, gz],
    ] as const) {
      pack.entry({ name, size: content.length }, content);
    }
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    writeFileSync(join(dir, 'oci-base.tar'), Buffer.concat(chunks));

    await main(['image', '--base', join(dir, 'oci-base.tar'), '--out', 'o.tar'], log);
    const image = await readDockerArchive(join(dir, 'o.tar'));
    expect(image.layers[0].equals(layer)).toBe(true); // stored plain
    expect(image.layers).toHaveLength(2);
  });

  test('every problem in one report: a base tarball that does not exist, no bundle, no chart to take the tag from', async () => {
    rmSync('bundle', { recursive: true });
    rmSync('dist', { recursive: true });
    await expect(main(['image', '--base', 'missing-base.tar'], log)).rejects.toThrow(
      /image:\n  - --base: missing-base\.tar does not exist\n  - --bundle: bundle\/controller\.js does not exist; build it first \(`npx cdk8s-operator bundle src\/main\.ts`\)\n  - --tag: not given, and dist\/ does not exist: run synth first, or give the tag$/,
    );
  });
});
