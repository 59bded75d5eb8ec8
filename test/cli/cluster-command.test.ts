import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart } from 'cdk8s';
import { clusterCommand, controllersOption } from '../../cli/cluster-command';
import { main } from '../../cli/main';
import { CustomResource, CustomResourceDefinition, Operator, OperatorApp, OutputLayout, Schema } from '../../lib';
import { findControlPlaneBinaries } from '../../runtime/envtest';
import { kubectl, REAL_APISERVER_TAG } from '../envtest';
import { until } from '../runtime/support';

function synth(dir: string): string {
  const app = new OperatorApp({ outdir: path.join(dir, 'dist'), layout: OutputLayout.APPLY_ORDER });
  const chart = new Chart(app, 'gizmos');
  const crd = new CustomResourceDefinition(chart, 'Gizmo', {
    group: 'local.example.com',
    kind: 'Gizmo',
    versions: [{ name: 'v1', spec: Schema.object({ properties: { size: Schema.integer() } }) }],
  });
  new Operator(chart, 'gizmo-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/gizmo:0.1.0',
    contract: { watches: [crd] },
  });
  new CustomResource(chart, 'example', { crd, metadata: { name: 'example', namespace: 'default' }, spec: { size: 1 } });
  app.synth();
  return path.join(dir, 'dist');
}

describe('cdk8s-operator cluster: options', () => {
  test('--controllers maps to ControlPlane options; bad values are refused naming the option', () => {
    expect(controllersOption(undefined)).toBeUndefined();
    expect(controllersOption('cluster')).toBeUndefined();
    expect(controllersOption('all')).toBe(true);
    expect(controllersOption('none')).toBe(false);
    expect(controllersOption('garbage-collector-controller, namespace-controller')).toEqual([
      'garbage-collector-controller',
      'namespace-controller',
    ]);
    expect(() => controllersOption('GC!')).toThrow(
      "--controllers: must be cluster, all, none or controller names (a,b), got 'GC!'",
    );
  });

  test('--help explains it', async () => {
    const out: string[] = [];
    expect(await main(['cluster', '--help'], (l) => out.push(l))).toBe(0);
    expect(out.join('\n')).toContain('A local control plane without Docker');
  });
});

const lookup = findControlPlaneBinaries(process.env);
const missing = 'missing' in lookup ? lookup.missing : undefined;
(missing && !process.env.ENVTEST_REQUIRED ? describe.skip : describe)(
  `cdk8s-operator cluster: kubectl apply -f dist without Docker ${REAL_APISERVER_TAG}`,
  () => {
    test('starts a control plane, applies dist/, prints a kubeconfig kubectl uses, stops on abort', async () => {
      if (missing) throw new Error(missing);
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-cmd-'));
      const abort = new AbortController();
      const lines: string[] = [];
      const kubeconfig = path.join(tmp, 'kc', 'kubeconfig');
      try {
        const dist = synth(tmp);
        const running = clusterCommand({ kubeconfig, signal: abort.signal }, (l) => lines.push(l));
        await until(
          'the kubeconfig printed',
          () => lines.some((l) => l.includes(`export KUBECONFIG=${kubeconfig}`)),
          90_000,
          100,
        );
        expect(lines[0]).toMatch(
          /^control plane up in [\d.]+ s at https:\/\/127\.0\.0\.1:\d+\n {2}kube-controller-manager controllers: clusterrole-aggregation-controller, garbage-collector-controller, namespace-controller, resourcequota-controller\n/,
        );
        // kubectl as a user runs it (dist/APPLY.md): the CRDs until Established, then everything
        expect((await kubectl(kubeconfig, ['apply', '-f', path.join(dist, '1-crds.yaml')])).code).toBe(0);
        expect(
          (
            await kubectl(kubeconfig, [
              'wait',
              '--for=condition=Established',
              'crd/gizmos.local.example.com',
              '--timeout=60s',
            ])
          ).code,
        ).toBe(0);
        const applied = await kubectl(kubeconfig, ['apply', '-f', dist]);
        expect([applied.code, applied.stderr]).toEqual([0, '']);
        expect(applied.stdout).toContain('gizmo.local.example.com/example created');
        const got = await kubectl(kubeconfig, [
          'get',
          'gizmos',
          '-n',
          'default',
          '-o',
          'jsonpath={.items[*].metadata.name}',
        ]);
        expect(got.stdout).toBe('example');
        const canI = await kubectl(kubeconfig, [
          'auth',
          'can-i',
          'list',
          'gizmos.local.example.com',
          '-A',
          '--as=system:serviceaccount:gizmo-operator-system:gizmo-operator',
        ]);
        expect(canI.stdout.trim()).toBe('yes');
        abort.abort();
        expect(await running).toBe(0);
        expect(lines[lines.length - 1]).toBe('control plane stopped');
        expect((await kubectl(kubeconfig, ['get', 'ns', '--request-timeout=3s'])).code).not.toBe(0);
      } finally {
        abort.abort();
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    }, 150_000);
  },
);
