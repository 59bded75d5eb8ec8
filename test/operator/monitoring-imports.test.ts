import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// imports/ is generated only. These are the exact commands that generate the prometheus-operator
// types from the vendored CRDs (offline); the test fails when imports/ is stale.
const ROOT = path.join(__dirname, '..', '..');
const MONITORING_IMPORTS = [
  {
    module: 'servicemonitor',
    crd: 'vendor/crds/monitoring.coreos.com_servicemonitors.yaml',
    file: 'servicemonitor-monitoring.coreos.com.ts',
  },
  {
    module: 'prometheusrule',
    crd: 'vendor/crds/monitoring.coreos.com_prometheusrules.yaml',
    file: 'prometheusrule-monitoring.coreos.com.ts',
  },
];

function cdk8sImport(spec: string, outdir: string): Promise<void> {
  const cli = path.join(ROOT, 'node_modules', '.bin', 'cdk8s');
  return new Promise((resolve, reject) =>
    execFile(
      cli,
      ['import', spec, '-o', outdir, '-l', 'typescript', '--no-save', '--no-check-upgrade'],
      { cwd: ROOT, timeout: 60_000 },
      (err) => (err ? reject(err) : resolve()),
    ),
  );
}

describe('imports/ for prometheus-operator', () => {
  test('is what `cdk8s import` generates from the vendored CRDs', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'imports-'));
    try {
      for (const m of MONITORING_IMPORTS) await cdk8sImport(`${m.module}:=${m.crd}`, out);
      for (const m of MONITORING_IMPORTS) {
        const fresh = fs.readFileSync(path.join(out, m.file), 'utf8');
        const committed = fs.readFileSync(path.join(ROOT, 'imports', m.file), 'utf8');
        expect({ file: m.file, fresh: fresh === committed }).toStrictEqual({ file: m.file, fresh: true });
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
