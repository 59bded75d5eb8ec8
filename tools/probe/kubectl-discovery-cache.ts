/**
 * How long kubectl trusts what it cached of a server's discovery, and what forgetKubectlDiscovery changes: a CRD is
 * installed, learnt by `kubectl get`, and deleted; then `kubectl apply` of the CRD and a custom resource together, with
 * the cache as it is, dated back 5 and 7 hours, and removed (runtime/envtest/kubeconfig.ts cites these answers).
 *
 *   npx tsx tools/probe/kubectl-discovery-cache.ts [--out=bench/latest/kubectl-discovery-cache-probe.txt]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ControlPlane } from '../../runtime/envtest';
import { forgetKubectlDiscovery } from '../../runtime/envtest/kubeconfig';
import { SAMPLE_CONTROLLER_FIXTURES } from '../../test/fixtures/recorded/paths';

const CRD = path.join(SAMPLE_CONTROLLER_FIXTURES, 'crd.yaml');
const FOO = path.join(SAMPLE_CONTROLLER_FIXTURES, 'example-foo.yaml');

async function main(): Promise<void> {
  const out = process.argv.find((a) => a.startsWith('--out='))?.slice('--out='.length);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-probe-'));
  const env = { ...process.env, KUBECACHEDIR: path.join(work, 'cache'), KUBECONFIG: path.join(work, 'kubeconfig') };
  const kubectl = (...args: string[]) => spawnSync('kubectl', args, { encoding: 'utf8', env });
  const plane = await ControlPlane.start({ controllerManager: false });
  const lines = [
    `kubectl ${JSON.parse(kubectl('version', '--client', '-o', 'json').stdout).clientVersion.gitVersion}, ` +
      `kube-apiserver at ${plane.url}, KUBECACHEDIR in a temporary folder`,
  ];
  try {
    plane.writeKubeconfig(env.KUBECONFIG);
    const cacheOfServer = path.join(env.KUBECACHEDIR, 'discovery', `127.0.0.1_${new URL(plane.url).port}`);
    const cases: [string, () => void][] = [
      ['the cache as kubectl left it', () => undefined],
      ['the cache dated back 5 hours', () => dateBack(cacheOfServer, 5)],
      ['the cache dated back 7 hours', () => dateBack(cacheOfServer, 7)],
      ['the cache removed by forgetKubectlDiscovery', () => forgetKubectlDiscovery(plane.url, env)],
    ];
    for (const [name, prepare] of cases) {
      kubectl('apply', '--server-side', '-f', CRD);
      kubectl('wait', '--for', 'condition=established', '-f', CRD);
      kubectl('get', 'foos', '-A'); // kubectl learns the kind
      kubectl('delete', '-f', CRD, '--wait');
      await waitGone(plane);
      prepare();
      const r = kubectl('apply', '-f', CRD, '-f', FOO, '-n', 'nowhere');
      lines.push(`${name}: exit ${r.status}: ${r.stderr.trim().split('\n').join(' ')}`);
      kubectl('delete', '-f', CRD, '--wait');
      await waitGone(plane);
    }
  } finally {
    await plane.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const text = `${lines.join('\n')}\n`;
  if (out) fs.writeFileSync(out, text);
  process.stdout.write(text);
}

/** Dates every file of the folder back (kubectl reads a cached file's age from its modification time). */
function dateBack(dir: string, hours: number): void {
  const when = new Date(Date.now() - hours * 3600_000);
  const walk = (p: string) => {
    if (fs.statSync(p).isDirectory()) for (const f of fs.readdirSync(p)) walk(path.join(p, f));
    fs.utimesSync(p, when, when);
  };
  walk(dir);
}

/** Until the apiserver no longer serves the group of the deleted CRD. */
async function waitGone(plane: ControlPlane): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const groups = (await plane.request('GET', '/apis')).body.groups.map((g: { name: string }) => g.name);
    if (!groups.includes('samplecontroller.k8s.io')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the CRD was not deleted within 10 s');
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
