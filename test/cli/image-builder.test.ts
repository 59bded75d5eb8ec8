import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as tar from 'tar-stream';
import { buildImage } from '../../cli/image/build-image';
import { DockerfileError, parseDockerfile } from '../../cli/image/dockerfile';
import { layerOf, readDockerArchive, writeImageArchive } from '../../cli/image/image-archive';

async function entriesOf(tarball: Buffer): Promise<Map<string, { mode?: number; uid?: number; content: Buffer }>> {
  const out = new Map<string, { mode?: number; uid?: number; content: Buffer }>();
  const extract = tar.extract();
  extract.on('entry', (h, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      out.set(h.name, { mode: h.mode, uid: h.uid, content: Buffer.concat(chunks) });
      next();
    });
  });
  extract.end(tarball);
  await new Promise<void>((resolve) => extract.on('finish', () => resolve()));
  return out;
}

describe('image builder (cli/image: the Dockerfile recipes of `cdk8s-operator image --dockerfile`)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'image-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("parses the controllers' Dockerfile recipe", () => {
    const recipe = parseDockerfile(readFileSync(join(__dirname, '../../controllers/sampledb/Dockerfile'), 'utf8'));
    expect(recipe).toMatchObject({
      from: 'gcr.io/distroless/nodejs20-debian12:nonroot',
      workdir: '/app',
      copies: [{ sources: ['dist/main.js', 'dist/main.js.map'], dest: '/app/' }],
      user: '65532:65532',
      env: { NODE_ENV: 'production' },
      exposedPorts: ['8080/tcp', '8081/tcp'],
      entrypoint: ['/nodejs/bin/node', '--enable-source-maps', '/app/main.js'],
    });
  });

  test('refuses what it cannot build without a container runtime, naming every line', () => {
    const bad = 'FROM node:20\nRUN npm ci\nCOPY onlyone\nENTRYPOINT node main.js\n';
    expect(() => parseDockerfile(bad, 'x/Dockerfile')).toThrow(DockerfileError);
    expect(() => parseDockerfile(bad, 'x/Dockerfile')).toThrow(
      /x\/Dockerfile: line 2: RUN is not supported.*; line 3: COPY needs a source and a destination, got 'onlyone'; line 4: only the JSON \(exec\) form is supported/,
    );
  });

  test("builds base layers + the copied files + the recipe's config into a docker-archive with an OCI index, deterministically", async () => {
    // A base image like the harness's distroless one: a file, user, env and an entrypoint.
    const baseLayer = await layerOf([{ path: '/nodejs/bin/node', content: Buffer.from('#!fake node'), mode: 0o755 }]);
    const base = join(dir, 'base.tar');
    await writeImageArchive(
      {
        layers: [baseLayer],
        config: {
          Env: ['PATH=/usr/bin', 'NODE_ENV=development'],
          User: '65532',
          Entrypoint: ['/nodejs/bin/node'],
          Cmd: ['x'],
        },
        architecture: 'amd64',
        os: 'linux',
      },
      ['base:1'],
      base,
    );
    const context = join(dir, 'ctx');
    mkdirSync(join(context, 'dist'), { recursive: true });
    writeFileSync(join(context, 'dist/main.js'), 'console.log("hi")');
    writeFileSync(join(context, 'dist/main.js.map'), '{}');
    writeFileSync(join(context, 'Dockerfile'), readFileSync(join(__dirname, '../../controllers/sampledb/Dockerfile')));

    const out = join(dir, 'out.tar');
    const built = await buildImage({ context, baseImage: base, tags: ['example.com/op:1.0.0'], out });
    const again = await buildImage({
      context,
      baseImage: base,
      tags: ['example.com/op:1.0.0'],
      out: join(dir, 'again.tar'),
    });
    expect(again.id).toBe(built.id);

    const image = await readDockerArchive(out);
    expect(image.layers).toHaveLength(2);
    expect(image.config).toStrictEqual({
      Env: ['PATH=/usr/bin', 'NODE_ENV=production'],
      User: '65532:65532',
      WorkingDir: '/app',
      Entrypoint: ['/nodejs/bin/node', '--enable-source-maps', '/app/main.js'],
      ExposedPorts: { '8080/tcp': {}, '8081/tcp': {} },
    });
    const files = await entriesOf(image.layers[1]);
    expect([...files.keys()]).toStrictEqual(['app/', 'app/main.js', 'app/main.js.map']);
    expect(files.get('app/main.js')!.content.toString()).toBe('console.log("hi")');
    expect(files.get('app/main.js')!.uid).toBe(0);

    const archive = await entriesOf(readFileSync(out));
    const manifest = JSON.parse(archive.get('manifest.json')!.content.toString());
    expect(manifest).toStrictEqual([
      { Config: `blobs/sha256/${built.id.slice(7)}`, RepoTags: ['example.com/op:1.0.0'], Layers: expect.any(Array) },
    ]);
    const index = JSON.parse(archive.get('index.json')!.content.toString());
    expect(index.manifests[0].annotations['io.containerd.image.name']).toBe('example.com/op:1.0.0');
    const ociManifest = JSON.parse(
      archive.get(`blobs/sha256/${index.manifests[0].digest.slice(7)}`)!.content.toString(),
    );
    expect(ociManifest.config.digest).toBe(built.id);
  });

  test('a base that is not a docker-archive is a clear error', async () => {
    const notAnImage = join(dir, 'x.tar');
    const pack = tar.pack();
    pack.entry({ name: 'hello.txt' }, 'hi');
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    writeFileSync(notAnImage, Buffer.concat(chunks));
    await expect(readDockerArchive(notAnImage)).rejects.toThrow(
      /x\.tar: neither a docker-archive \(no manifest\.json\) nor an OCI image layout \(no index\.json\); save the base image with `skopeo copy/,
    );
  });
});
