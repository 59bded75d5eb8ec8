import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CorpusFetchError, fetchCorpus } from '../../tools/realworld-corpus/fetch';
import { serveGitClones } from '../../tools/realworld-corpus/serve-git';
import {
  CorpusSource,
  cutDocument,
  parseSources,
  pinnedSources,
  renderSources,
  sha256Of,
} from '../../tools/realworld-corpus/sources';
import { REALWORLD_CORPUS, REALWORLD_SUBSET } from '../support/differential/corpus';

const ROOT = path.join(__dirname, '..', '..');
const subset = (file: string) => fs.readFileSync(path.join(REALWORLD_SUBSET, file), 'utf8');
const GATEWAYS = 'gateway-api__gateways.gateway.networking.k8s.io.yaml';
const SNAPSHOTS = 'external-snapshotter__volumesnapshots.snapshot.storage.k8s.io.yaml';
const BACKUPS = 'velero__podvolumebackups.velero.io.yaml';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const close = (server: Server) => new Promise((resolve) => server.close(resolve));
const listing = (dir: string) =>
  Object.fromEntries(fs.readdirSync(dir).map((f) => [f, sha256Of(fs.readFileSync(path.join(dir, f)))]));

describe('the pinned list (test/fixtures/realworld-corpus/SOURCES.tsv)', () => {
  const sources = pinnedSources();

  test('201 CRDs of 20 projects, each at a commit, with its size and SHA-256', () => {
    expect(sources).toHaveLength(201);
    expect(new Set(sources.map((s) => s.file.split('__')[0])).size).toBe(20);
    expect(renderSources(sources)).toBe(
      fs.readFileSync(path.join(ROOT, 'test/fixtures/realworld-corpus/SOURCES.tsv'), 'utf8'),
    );
  });

  test('the vendored subset is the same text as the pinned files', () => {
    const vendored = sources.filter((s) => fs.existsSync(path.join(REALWORLD_SUBSET, s.file)));
    expect(vendored.map((s) => s.file)).toEqual(expect.arrayContaining([GATEWAYS, SNAPSHOTS, BACKUPS]));
    for (const s of vendored) {
      expect({ file: s.file, sha256: sha256Of(subset(s.file)) }).toEqual({ file: s.file, sha256: s.sha256 });
    }
  });

  test('a malformed list is refused, every bad row named', () => {
    const good = renderSources(sources.slice(0, 2)).split('\n');
    const bad = [
      good[0],
      good[1].replace(/\t[0-9a-f]{40}\t/, '\tmain\t'),
      good[2].replace(/\t[0-9a-f]{64}$/, '\txyz'),
      good[1],
    ].join('\n');
    expect(() => parseSources(bad, 'list.tsv')).toThrow(
      [
        "list.tsv:2: commit 'main' is not 40 hex digits",
        "list.tsv:3: sha256 'xyz' is not 64 hex digits",
        `list.tsv: '${sources[0].file}' is listed twice`,
      ].join('\n'),
    );
  });
});

describe('cutting an upstream file to its CRD', () => {
  test("kubebuilder's leading --- goes; a file without one is kept whole", () => {
    expect(cutDocument(`---\n${subset(BACKUPS)}`, BACKUPS)).toBe(subset(BACKUPS));
    expect(cutDocument(subset(BACKUPS), BACKUPS)).toBe(subset(BACKUPS));
  });

  test('of several documents, the one that defines the named CRD', () => {
    const both = `# two CRDs\n---\n${subset(SNAPSHOTS)}---\n${subset(BACKUPS)}`;
    expect(cutDocument(both, BACKUPS)).toBe(subset(BACKUPS));
    expect(cutDocument(both, SNAPSHOTS)).toBe(subset(SNAPSHOTS));
    expect(() => cutDocument(both, GATEWAYS)).toThrow(
      '0 of its 2 YAML documents define the CustomResourceDefinition gateways.gateway.networking.k8s.io',
    );
  });
});

describe('npm run corpus:fetch', () => {
  let tmp: string;
  let out: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-fetch-'));
    out = path.join(tmp, 'corpus');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A clone at `<tmp>/clones/acme/crds` with one commit holding the files as upstream writes them. */
  function upstreamClone(): { baseDir: string; sources: CorpusSource[] } {
    const repo = path.join(tmp, 'clones', 'acme', 'crds');
    fs.mkdirSync(path.join(repo, 'config'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'config', 'gateways.yaml'), `---\n${subset(GATEWAYS)}`);
    fs.writeFileSync(path.join(repo, 'config', 'two.yaml'), `${subset(SNAPSHOTS)}---\n${subset(BACKUPS)}`);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'crds');
    const commit = git('rev-parse', 'HEAD');
    const source = (file: string, p: string): CorpusSource => ({
      file,
      repo: 'acme/crds',
      path: p,
      commit,
      size: Buffer.byteLength(subset(file)),
      sha256: sha256Of(subset(file)),
    });
    return {
      baseDir: path.join(tmp, 'clones'),
      sources: [
        source(GATEWAYS, 'config/gateways.yaml'),
        source(SNAPSHOTS, 'config/two.yaml'),
        source(BACKUPS, 'config/two.yaml'),
      ],
    };
  }

  test('reads each file at its commit from a mirror, cuts it, checks it, and keeps what is already there', async () => {
    const { baseDir, sources } = upstreamClone();
    const server = serveGitClones(baseDir);
    const baseUrl = await listen(server);
    try {
      expect(await fetchCorpus({ sources, out, origin: { baseUrl } })).toEqual({ read: 3, kept: 0 });
      for (const s of sources) expect(fs.readFileSync(path.join(out, s.file), 'utf8')).toBe(subset(s.file));
      expect(parseSources(fs.readFileSync(path.join(out, 'SOURCES.tsv'), 'utf8'))).toEqual(sources);
      expect(await fetchCorpus({ sources, out, origin: { baseUrl } })).toEqual({ read: 0, kept: 3 });
      expect(fs.readdirSync(tmp).sort()).toEqual(['clones', 'corpus']);
    } finally {
      await close(server);
    }
  });

  test('a file that differs from its pin, or is missing, fails the whole run, each named, and the last good corpus stays', async () => {
    const { baseDir, sources } = upstreamClone();
    const server = serveGitClones(baseDir);
    const baseUrl = await listen(server);
    try {
      await fetchCorpus({ sources: sources.slice(0, 1), out, origin: { baseUrl } });
      const before = listing(out);
      const changed = { ...sources[1], sha256: '0'.repeat(64) };
      const missing = { ...sources[2], path: 'config/gone.yaml' };
      const error = await fetchCorpus({ sources: [sources[0], changed, missing], out, origin: { baseUrl } }).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(CorpusFetchError);
      expect(error.message).toContain('2 corpus file(s) failed; the corpus folder is unchanged');
      expect(error.message).toContain(
        `${SNAPSHOTS} (${baseUrl}/acme/crds/${changed.commit}/config/two.yaml): sha256 ${sources[1].sha256} (${sources[1].size} bytes), pinned ${'0'.repeat(64)}`,
      );
      expect(error.message).toContain(`${BACKUPS} (${baseUrl}/acme/crds/${missing.commit}/config/gone.yaml): HTTP 404`);
      expect(listing(out)).toEqual(before);
      expect(fs.readdirSync(tmp).sort()).toEqual(['clones', 'corpus']);
    } finally {
      await close(server);
    }
  });

  test('a failing server is tried again; a missing file is not', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url!);
      const first = requests.filter((u) => u === req.url).length === 1;
      if (req.url!.endsWith('/flaky.yaml') && first) res.writeHead(503).end();
      else if (req.url!.endsWith('/flaky.yaml')) res.writeHead(200).end(subset(BACKUPS));
      else res.writeHead(404).end();
    });
    const baseUrl = await listen(server);
    try {
      const pin = {
        repo: 'acme/crds',
        commit: 'a'.repeat(40),
        size: Buffer.byteLength(subset(BACKUPS)),
        sha256: sha256Of(subset(BACKUPS)),
      };
      const sources = [
        { ...pin, file: BACKUPS, path: 'flaky.yaml' },
        { ...pin, file: 'other__x.example.com.yaml', path: 'missing.yaml' },
      ];
      const error = await fetchCorpus({ sources, out, origin: { baseUrl } }).catch((e) => e);
      expect(error.problems).toEqual([
        {
          file: 'other__x.example.com.yaml',
          from: `${baseUrl}/acme/crds/${pin.commit}/missing.yaml`,
          reason: 'HTTP 404',
        },
      ]);
      expect(requests.filter((u) => u.endsWith('/flaky.yaml'))).toHaveLength(2);
      expect(requests.filter((u) => u.endsWith('/missing.yaml'))).toHaveLength(1);
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      await close(server);
    }
  });

  test('--from a folder that holds the corpus: checked file by file, a changed one refused', async () => {
    const { sources } = upstreamClone();
    const given = path.join(tmp, 'given');
    fs.mkdirSync(given);
    for (const s of sources) fs.writeFileSync(path.join(given, s.file), subset(s.file));
    expect(await fetchCorpus({ sources, out, origin: { dir: given } })).toEqual({ read: 3, kept: 0 });
    fs.rmSync(out, { recursive: true });
    fs.appendFileSync(path.join(given, BACKUPS), '# edited\n');
    const error = await fetchCorpus({ sources, out, origin: { dir: given } }).catch((e) => e);
    expect(error.problems.map((p: { file: string }) => p.file)).toEqual([BACKUPS]);
    expect(fs.existsSync(out)).toBe(false);
  });

  test('the command reports a failure in one report, without a stack trace, and exits 1', () => {
    const run = spawnSync(
      process.execPath,
      [require.resolve('tsx/cli'), 'tools/realworld-corpus/main.ts', '--from', path.join(tmp, 'nowhere'), '--out', out],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, DEBUG: '' },
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `corpus:fetch: 201 corpus file(s) failed; the corpus folder is unchanged:\n  201 files (${path.join(tmp, 'nowhere')}/`,
    );
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(fs.existsSync(out)).toBe(false);
  });
});

// the whole corpus the corpus-wide suites read (CI: a copy checked by `npm run corpus:fetch -- --from`)
(REALWORLD_CORPUS ? describe : describe.skip)('the whole corpus the suites read', () => {
  test('is the pinned text, file for file', () => {
    const files = fs.readdirSync(REALWORLD_CORPUS!).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual(
      pinnedSources()
        .map((s) => s.file)
        .sort(),
    );
    const differing = pinnedSources().filter(
      (s) => sha256Of(fs.readFileSync(path.join(REALWORLD_CORPUS!, s.file))) !== s.sha256,
    );
    expect(differing.map((s) => s.file)).toEqual([]);
  });
});
