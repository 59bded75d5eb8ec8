import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { packedPackageDir } from './support/npm-pack';

const ROOT = path.join(__dirname, '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const FIVE_MINUTES = README.split('## Five minutes')[1].split('\n## ')[0];
/**
 * The five-minute example, importing the package as packed (its compiled JavaScript and the declarations users
 * compile against: test/support/npm-pack.ts, one clean build per content of the sources, shared with the package test).
 */
const packedExample = () =>
  /^```ts\n([\s\S]*?)^```$/m
    .exec(FIVE_MINUTES)![1]
    .replace("from 'cdk8s-operator'", `from '${path.join(packedPackageDir(), 'build', 'lib')}'`);

// Outside the repository (nothing written into it); 'cdk8s' and 'constructs' resolve from its node_modules.
const tsx = (file: string, outdir: string) =>
  spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [file], {
    cwd: path.dirname(file),
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_PATH: path.join(ROOT, 'node_modules'),
      CDK8S_OUTDIR: outdir,
      CDK8S_OPERATOR_QUIET: '1',
    },
  });

describe("the README's five-minute example", () => {
  let dir: string;
  let example: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-'));
    example = packedExample();
  }, 300_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // (It also compiles with the other docs' blocks, in test/docs/code-blocks.test.ts.)
  test('type-checks with the strictest settings, synthesizes without a warning, and the apply commands shown are the ones its dist/APPLY.md gives', () => {
    const file = path.join(dir, 'main.ts');
    fs.writeFileSync(file, example);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          noUnusedLocals: true,
          esModuleInterop: true,
          skipLibCheck: true,
          target: 'ES2022',
          module: 'commonjs',
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
          baseUrl: ROOT,
          paths: { '*': ['node_modules/*'] },
        },
        files: ['main.ts'],
      }),
    );
    const tsc = ['-p', path.join(dir, 'tsconfig.json')];
    try {
      execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), tsc, { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    } catch (e) {
      throw new Error(`README example does not compile:\n${(e as { stdout?: string }).stdout}`);
    }
    const out = path.join(dir, 'dist');
    const run = tsx(file, out);
    // no error, and no warning either (every schema field has a description)
    expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' });
    const all = fs
      .readdirSync(out)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => fs.readFileSync(path.join(out, f), 'utf8'))
      .join('\n');
    expect(all).toContain('name: backups.ops.example.com');
    expect(all).toContain('kind: Backup\n');
    expect(all).toMatch(/kind: Role\n/);
    expect(fs.readdirSync(out)).toContain('backup-operator.rbac-report.md');
    const applyShown = /^```sh\n([\s\S]*?)^```$/m.exec(FIVE_MINUTES.split('Apply it:')[1])![1];
    const applyGiven = /^```sh\n([\s\S]*?)^```$/m.exec(fs.readFileSync(path.join(out, 'APPLY.md'), 'utf8'))![1];
    expect(applyShown).toBe(applyGiven);
  });

  test('a misspelt field or `keep: 500` in its example resource fails synth naming the construct and the field, and writes nothing', () => {
    const bad = example.replace(
      "spec: { schedule: '0 2 * * *' }",
      "spec: { schedule: '0 2 * * *', keep: 500, shedule: 'x' }",
    );
    expect(bad).not.toBe(example);
    const file = path.join(dir, 'bad.ts');
    fs.writeFileSync(file, bad);
    const out = path.join(dir, 'bad-dist');
    const run = tsx(file, out);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('[backups/nightly] spec.shedule: unknown field "spec.shedule"');
    expect(run.stderr).toMatch(/\[backups\/nightly\] .*spec: Invalid value: .*keep at most 100 backups/);
    expect(fs.existsSync(out)).toBe(false);
  });
});
