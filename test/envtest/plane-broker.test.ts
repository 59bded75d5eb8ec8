import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_APISERVER_TAG } from '.';
import { PlaneBroker } from './plane-broker';
import { acquireSharedPlane, releaseSharedPlane } from './shared-planes';
import { ControlPlane, findControlPlaneBinaries } from '../../runtime/envtest';
import { until } from '../runtime/support';

const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.broker.example.com' },
  spec: {
    group: 'broker.example.com',
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const GADGETS = '/apis/broker.example.com/v1/namespaces/default/gadgets';

const lookup = findControlPlaneBinaries(process.env);
const missing = 'missing' in lookup ? lookup.missing : undefined;

// A broker of its own (not the run's, which global-setup.ts started): what it starts and reuses is counted here alone.
(missing && !process.env.ENVTEST_REQUIRED ? describe.skip : describe)(
  `the broker of shared control planes ${REAL_APISERVER_TAG}`,
  () => {
    let dir: string;
    let broker: PlaneBroker;
    const runBroker = process.env.ENVTEST_PLANE_BROKER;
    beforeAll(async () => {
      if (missing) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
      dir = mkdtempSync(join(tmpdir(), 'broker-test-'));
      broker = await PlaneBroker.listen(join(dir, 'broker.sock'));
      process.env.ENVTEST_PLANE_BROKER = join(dir, 'broker.sock');
    });
    afterAll(async () => {
      process.env.ENVTEST_PLANE_BROKER = runBroker;
      await broker?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a released plane serves the next suite, reset to its fresh state; a second starts only while the first is held', async () => {
      const first = await acquireSharedPlane({ controllerManager: false, crds: [gadgetCrd] });
      const ns = await first.createNamespace('left-over-');
      expect(
        (
          await first.request('POST', GADGETS, {
            apiVersion: 'broker.example.com/v1',
            kind: 'Gadget',
            metadata: { name: 'g' },
          })
        ).code,
      ).toBe(201);
      await releaseSharedPlane(first);

      const second = await acquireSharedPlane({ controllerManager: false });
      expect(second.url).toBe(first.url);
      expect(
        (
          await second.request(
            'GET',
            '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.broker.example.com',
          )
        ).code,
      ).toBe(404);
      expect((await second.request('GET', `/api/v1/namespaces/${ns}`)).code).toBe(404);
      // a shared plane is given back, not stopped by the suite
      await expect(second.stop()).rejects.toThrow('released');

      const third = await acquireSharedPlane({ controllerManager: false });
      expect(third.url).not.toBe(second.url);
      await releaseSharedPlane(second);
      await releaseSharedPlane(third);
      expect(broker.stats).toStrictEqual({ started: 2, acquired: 3, resetFailures: 0 });
    }, 120_000);

    test("the plane's kube-controller-manager is restarted by the broker after a suite's CRDs: the garbage collector knows them", async () => {
      const plane = await acquireSharedPlane({
        controllerManager: ['garbage-collector-controller'],
        crds: [gadgetCrd],
      });
      try {
        expect(plane.hasControllerManager).toBe(true);
        const owner = await plane.request('POST', GADGETS, {
          apiVersion: 'broker.example.com/v1',
          kind: 'Gadget',
          metadata: { name: 'owner' },
        });
        expect(owner.code).toBe(201);
        const dependent = await plane.request('POST', '/api/v1/namespaces/default/configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'dependent',
            ownerReferences: [
              { apiVersion: 'broker.example.com/v1', kind: 'Gadget', name: 'owner', uid: owner.body.metadata.uid },
            ],
          },
        });
        expect(dependent.code).toBe(201);
        expect((await plane.request('DELETE', `${GADGETS}/owner`)).code).toBe(200);
        await until(
          'the dependent ConfigMap collected',
          async () => (await plane.request('GET', '/api/v1/namespaces/default/configmaps/dependent')).code === 404,
          30_000,
          200,
        );
      } finally {
        await releaseSharedPlane(plane);
      }
    }, 120_000);

    test('closing the broker stops its planes', async () => {
      const plane = await acquireSharedPlane({ controllerManager: false });
      const url = plane.url;
      await releaseSharedPlane(plane);
      await broker.close();
      const probe = Object.assign(Object.create(ControlPlane.prototype), plane) as ControlPlane;
      await expect(probe.request('GET', '/readyz')).rejects.toThrow();
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    }, 120_000);
  },
);

// The run's broker lives in jest's own process and the suites in its workers: here, a broker in a process of its own.
(missing && !process.env.ENVTEST_REQUIRED ? describe.skip : describe)(
  `a broker in another process than the suites ${REAL_APISERVER_TAG}`,
  () => {
    let dir: string;
    let child: ChildProcess;
    const runBroker = process.env.ENVTEST_PLANE_BROKER;
    beforeAll(async () => {
      if (missing) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
      dir = mkdtempSync(join(tmpdir(), 'broker-test-'));
      const socket = join(dir, 'broker.sock');
      // keepAliveTimeout: the broker's server closes a connection idle this long (Node's default: 5 s; under 2 s its
      // Keep-Alive header says timeout=0 and the client does not keep the connection at all)
      const script = `
        import { PlaneBroker } from './test/envtest/plane-broker';
        PlaneBroker.listen(${JSON.stringify(socket)}).then((broker) => {
          Reflect.get(broker, 'server').keepAliveTimeout = 2_000;
          process.on('SIGTERM', () => void broker.close().then(() => process.exit(0)));
          console.log('listening');
        });`;
      child = spawn(process.execPath, [require.resolve('tsx/cli'), '-e', script], {
        cwd: join(__dirname, '../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await once(child.stdout!, 'data');
      process.env.ENVTEST_PLANE_BROKER = socket;
    });
    afterAll(async () => {
      process.env.ENVTEST_PLANE_BROKER = runBroker;
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    });

    test("a worker busy while the broker closed their idle connection still gets a plane (stop 42's 'write EPIPE')", async () => {
      await releaseSharedPlane(await acquireSharedPlane({ controllerManager: false }));
      // a worker loads its next test file synchronously: meanwhile the broker closes the connection of the release
      const busyUntil = Date.now() + 3_000;
      while (Date.now() < busyUntil);
      const next = await acquireSharedPlane({ controllerManager: false });
      expect((await next.request('GET', '/readyz')).code).toBe(200);
      await releaseSharedPlane(next);
    }, 120_000);
  },
);
