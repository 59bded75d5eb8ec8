import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const RUNNER = path.join(ROOT, 'tools', 'run-app', 'run-app.cjs');

function run(entry: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [RUNNER, entry], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
}

function bundleOf(entry: string): string {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'cdk8s-operator-run-app');
  // the bundle whose recorded inputs hold the entry
  const inputs = fs
    .readdirSync(dir)
    .find((f) => f.endsWith('.cjs.inputs.json') && entry in JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  if (!inputs) throw new Error(`no bundle of ${entry}`);
  return path.join(dir, inputs.replace(/\.inputs\.json$/, ''));
}

describe('tools/run-app (what cdk8s.yaml runs)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-app-'));
  });
  afterEach(() => {
    // this test's bundles (keyed by their temporary entry paths) would otherwise pile up in the cache
    const cache = path.join(ROOT, 'node_modules', '.cache', 'cdk8s-operator-run-app');
    for (const f of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
      if (
        f.endsWith('.cjs.inputs.json') &&
        Object.keys(JSON.parse(fs.readFileSync(path.join(cache, f), 'utf8'))).some((k) => k.startsWith(dir))
      ) {
        const bundle = f.replace(/\.inputs\.json$/, '');
        for (const file of fs.readdirSync(cache).filter((g) => g === bundle || g.startsWith(`${bundle}.`))) {
          fs.rmSync(path.join(cache, file), { force: true });
        }
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('runs the app from a bundle, each source with its own __dirname, and rebuilds when a source changed', () => {
    fs.mkdirSync(path.join(dir, 'lib'));
    const entry = path.join(dir, 'app.ts');
    fs.writeFileSync(
      entry,
      "import { message } from './lib/message';\nconst here: string = __dirname;\nconsole.log(message(), here);\n",
    );
    const write = (text: string) =>
      fs.writeFileSync(
        path.join(dir, 'lib', 'message.ts'),
        `export function message(): string { return '${text} ' + __dirname; }\n`,
      );
    write('v1');
    const first = run(entry);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe(`v1 ${path.join(dir, 'lib')} ${dir}`);
    const built = fs.statSync(bundleOf(entry)).mtimeMs;

    expect(run(entry).stdout).toBe(first.stdout);
    expect(fs.statSync(bundleOf(entry)).mtimeMs).toBe(built); // unchanged inputs: no rebuild

    write('second');
    expect(run(entry).stdout.trim()).toBe(`second ${path.join(dir, 'lib')} ${dir}`);
  });

  test('compiles from a V8 code cache of this exact bundle; a rebuilt bundle or a corrupt cache is never used', () => {
    const entry = path.join(dir, 'app.ts');
    const write = (text: string) => fs.writeFileSync(entry, `console.log(${JSON.stringify(text)});\n`);
    const cachesOf = (bundle: string) =>
      fs
        .readdirSync(path.dirname(bundle))
        .filter((f) => f.startsWith(`${path.basename(bundle)}.`) && f.endsWith('.v8cache'))
        .map((f) => path.join(path.dirname(bundle), f));
    write('v1');
    expect(run(entry).stdout).toBe('v1\n');
    const bundle = bundleOf(entry);
    const [cache] = cachesOf(bundle);
    expect(cachesOf(bundle)).toHaveLength(1);
    expect(path.basename(cache)).toContain(`.${fs.statSync(bundle).size}-`); // named after this bundle's size and mtime

    const written = fs.statSync(cache).mtimeMs;
    expect(run(entry).stdout).toBe('v1\n');
    expect(fs.statSync(cache).mtimeMs).toBe(written); // accepted by V8: not rewritten

    fs.writeFileSync(cache, 'not a code cache');
    const corrupt = run(entry);
    expect({ stdout: corrupt.stdout, status: corrupt.status }).toEqual({ stdout: 'v1\n', status: 0 });
    expect(fs.readFileSync(cache, 'utf8')).not.toBe('not a code cache'); // rejected by V8, then replaced

    write('second, a longer text');
    expect(run(entry).stdout).toBe('second, a longer text\n');
    expect(cachesOf(bundle)).toHaveLength(1);
    expect(cachesOf(bundle)[0]).not.toBe(cache); // the old bundle's cache is gone
  });

  test('an app that throws exits non-zero with its error; a TypeScript syntax error fails the build', () => {
    const failing = path.join(dir, 'failing.ts');
    fs.writeFileSync(failing, "throw new Error('invalid chart: spec.replicas must be >= 0');\n");
    const failed = run(failing);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('invalid chart: spec.replicas must be >= 0');

    const broken = path.join(dir, 'broken.ts');
    fs.writeFileSync(broken, 'const = ;\n');
    const notBuilt = run(broken);
    expect(notBuilt.status).toBe(1);
    expect(notBuilt.stderr).toMatch(/broken\.ts:1/);
  });

  test('cdk8s.yaml runs the demo apps through it, with the same output as tsx', () => {
    expect(fs.readFileSync(path.join(ROOT, 'cdk8s.yaml'), 'utf8')).toMatch(
      /^app: node tools\/run-app\/run-app\.cjs apps\/main\.ts$/m,
    );
    const synth = (name: string, command: string[]) => {
      const out = path.join(dir, name, 'dist');
      execFileSync(command[0], command.slice(1), {
        cwd: ROOT,
        env: { ...process.env, CDK8S_OUTDIR: out, CDK8S_OPERATOR_QUIET: '1' },
        stdio: 'pipe',
      });
      return out;
    };
    const viaTsx = synth('tsx', [path.join(ROOT, 'node_modules', '.bin', 'tsx'), 'apps/main.ts']);
    const viaRunner = synth('runner', [process.execPath, RUNNER, 'apps/main.ts']);
    const files = (root: string): string[] =>
      fs
        .readdirSync(root, { recursive: true, encoding: 'utf8' })
        .filter((f) => fs.statSync(path.join(root, f)).isFile())
        .sort();
    expect(files(viaRunner)).toEqual(files(viaTsx));
    for (const f of files(viaTsx)) {
      // APPLY.md names the output folder, which differs here by design
      const read = (root: string) =>
        fs
          .readFileSync(path.join(root, f), 'utf8')
          .split(root)
          .join('<out>')
          .split(path.basename(path.dirname(root)))
          .join('<name>');
      expect({ f, text: read(viaRunner) }).toEqual({ f, text: read(viaTsx) });
    }
  }, 120_000);
});
