import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { generateAppImports, IMPORTS_DIR } from '../../apps/generate-imports';
import { staleImports } from '../../lib';

const ROOT = path.join(__dirname, '..', '..');

test("imports/ matches the apps' CRDs (run `npx projen import` when this fails)", async () => {
  const files = await generateAppImports();
  expect(files.map((f) => f.path)).toEqual(['database.example.com.ts', 'samplecontroller.k8s.io.ts']);
  expect(staleImports(IMPORTS_DIR, files)).toEqual([]);
});

test('imports/ matches the vendored CRDs (run `npx projen import` when this fails)', () => {
  const tasks = JSON.parse(fs.readFileSync(path.join(ROOT, '.projen', 'tasks.json'), 'utf8')).tasks;
  const commands: string[] = tasks.import.steps
    .map((s: any) => s.exec)
    .filter((c: string) => c.startsWith('cdk8s import'));
  expect(commands.length).toBeGreaterThan(0);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vendored-imports-'));
  try {
    for (const command of commands) {
      const args = command
        .split(' ')
        .slice(1)
        .map((a) => (a === 'imports' ? out : a));
      execFileSync(path.join(ROOT, 'node_modules', '.bin', 'cdk8s'), args, { cwd: ROOT, stdio: 'pipe' });
    }
    const generated = fs
      .readdirSync(out)
      .map((f) => ({ path: f, content: fs.readFileSync(path.join(out, f), 'utf8') }));
    expect(generated.length).toBe(commands.length);
    expect(staleImports(IMPORTS_DIR, generated)).toEqual([]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
