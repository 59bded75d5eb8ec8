import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..');

// The README's library example must compile and synthesize as written.
test('the README example type-checks and synthesizes', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(readme)![1].replace("from 'cdk8s-operator'", `from '${path.join(ROOT, 'lib')}'`);
  // Inside the repo so that 'cdk8s' resolves from its node_modules.
  fs.mkdirSync(path.join(ROOT, 'node_modules', '.cache'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.cache', 'readme-'));
  try {
    const file = path.join(dir, 'example.ts');
    fs.writeFileSync(file, code);
    const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
    const tsc = ['--noEmit', '--strict', '--noUnusedLocals', '--esModuleInterop', '--skipLibCheck', '--target', 'ES2022', '--module', 'commonjs', '--types', 'node', file];
    try {
      execFileSync(bin('tsc'), tsc, { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    } catch (e) {
      throw new Error(`README example does not compile:\n${(e as { stdout?: string }).stdout}`);
    }
    const out = path.join(dir, 'dist');
    execFileSync(bin('tsx'), [file], { cwd: ROOT, env: { ...process.env, CDK8S_OUTDIR: out, CDK8S_OPERATOR_QUIET: '1' }, stdio: 'pipe' });
    const all = fs.readdirSync(out).filter(f => f.endsWith('.yaml')).map(f => fs.readFileSync(path.join(out, f), 'utf8')).join('\n');
    expect(all).toContain('name: backups.ops.example.com');
    expect(all).toContain('kind: Backup\n');
    expect(all).toMatch(/kind: Role\n/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
