/**
 * Our Foo controller against upstream's: kubernetes/sample-controller (Go, client-go v1.32, from
 * KUBEBUILDER_ASSETS) handles the same Foos in one namespace, ours in another, on the same real apiserver with
 * the real deployment controller; the end states must be equal object by object.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foo, FOO_API, FooNamespace, startFooManager } from './harness';
import { endStateDifferences, normalizedEndState } from '../../../bench/foo-world';
import { Manager } from '../../../runtime/manager';
import { describeRealApiServer } from '../../envtest';
import { fooCrd, sleep, until } from '../../runtime/support';

const T = 60_000;
const SAMPLE_CONTROLLER = join(process.env.KUBEBUILDER_ASSETS ?? '', 'sample-controller');

/** Foos of every kind of outcome: available replicas, none available (0), and a Deployment name already taken. */
async function createScenario(env: FooNamespace): Promise<void> {
  await env.put({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'taken' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'x', image: 'x' }] } },
    },
  });
  await env.put(foo('running', 'running-deploy', 2));
  await env.put(foo('waiting', 'waiting-deploy', 1));
  await env.put(foo('intruder', 'taken', 1));
}

/** Pods of `waiting` (and of the foreign Deployment) never run; all others do. */
const held = (pod: any) => pod.metadata.labels?.controller === 'waiting' || pod.metadata.labels?.a === 'b';

async function converged(env: FooNamespace): Promise<boolean> {
  const running = await env.getFoo('running');
  const waiting = await env.getFoo('waiting');
  const events = await env.list('events.k8s.io/v1', 'Event');
  return (
    running?.status?.availableReplicas === 2 &&
    waiting?.status?.availableReplicas === 0 &&
    events.some((e: any) => e.reason === 'ErrResourceExists')
  );
}

/**
 * The end state object by object, without what differs between any two namespaces (uids, timestamps, versions):
 * the comparison the controller benchmark makes at 1,000-10,000 Foos (bench/foo-world.ts), here at small scale.
 */
async function endState(env: FooNamespace): Promise<Map<string, string>> {
  return normalizedEndState(await env.list(FOO_API, 'Foo'), await env.list('apps/v1', 'Deployment'));
}

/** sample-controller is a binary of KUBEBUILDER_ASSETS only where it was put there (CI's install script puts it), not setup-envtest's. */
const testWithUpstream = existsSync(SAMPLE_CONTROLLER) || process.env.ENVTEST_REQUIRED ? test : test.skip;

describeRealApiServer(
  "Foo end state equals kubernetes/sample-controller's",
  (plane) => {
    let dir: string;
    let child: ChildProcess | undefined;
    let ours: Manager | undefined;
    const envs: FooNamespace[] = [];

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'foo-parity-'));
    });
    afterAll(async () => {
      child?.kill('SIGKILL');
      await ours?.stop();
      for (const e of envs) e.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    testWithUpstream(
      'Deployments (spec, labels, ownerReferences) and Foo status match, 0 available replicas included',
      async () => {
        // upstream first, alone (it watches every namespace)
        const upstream = await FooNamespace.create(plane(), true, held);
        envs.push(upstream);
        const kubeconfig = join(dir, 'kubeconfig');
        plane().writeKubeconfig(kubeconfig);
        let output = '';
        child = spawn(SAMPLE_CONTROLLER, ['--kubeconfig', kubeconfig], {
          env: { ...process.env, SAMPLE_QPS: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout!.on('data', (d) => {
          output += d;
        });
        child.stderr!.on('data', (d) => {
          output += d;
        });
        await createScenario(upstream);
        await until(`sample-controller converges\n${output}`, () => converged(upstream), T, 200);
        await sleep(1000);
        const expected = await endState(upstream);
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGTERM');
        await exited;
        upstream.stop();

        // ours, in its own namespace
        const mine = await FooNamespace.create(plane(), true, held);
        envs.push(mine);
        ours = await startFooManager(plane().kubeConfig(), { namespace: mine.ns });
        await createScenario(mine);
        await until('ours converges', () => converged(mine), T, 200);
        await sleep(1000);
        const actual = await endState(mine);

        expect([...expected.keys()].sort()).toStrictEqual([
          'Deployment/running-deploy',
          'Deployment/taken',
          'Deployment/waiting-deploy',
          'Foo/intruder',
          'Foo/running',
          'Foo/waiting',
        ]);
        expect(endStateDifferences(expected, actual)).toStrictEqual([]);
        expect(JSON.parse(expected.get('Foo/waiting')!).status).toEqual({ availableReplicas: 0 });
      },
      180_000,
    );
  },
  { shared: true, crds: [fooCrd()], controllerManager: true },
);
