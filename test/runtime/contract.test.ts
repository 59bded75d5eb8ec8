import { MemoryClient } from './memory-client';
import { testLogger } from './support';
import { FOO_CONTRACT } from '../../controllers/foo/contract';
import { setupFooController } from '../../controllers/foo/controller';
import { DEPLOYMENT, FOO } from '../../controllers/foo/types';
import { SAMPLEDB_CONTRACT } from '../../controllers/sampledb/contract';
import { setupSampleDbController } from '../../controllers/sampledb/controller';
import { ControllerContract as ChartContract } from '../../lib';
import { ContractViolationError, ControllerBuilder, defineContract, Manager, resourceRef } from '../../runtime';
import { RuntimeMetrics } from '../../runtime/metrics';

const CONFIGMAP = resourceRef({ apiVersion: 'v1', kind: 'ConfigMap' });
const SECRET = resourceRef({ apiVersion: 'v1', kind: 'Secret', plural: 'secrets' });

function manager(options: ConstructorParameters<typeof Manager>[0] = {}): Manager {
  return new Manager({ client: new MemoryClient(), logger: testLogger(), ...options });
}

const noop = { reconcile: async () => undefined };

describe('the controller contract at start-up', () => {
  test('the Foo controller is wired exactly within its contract', () => {
    expect(() => setupFooController(manager({ contract: FOO_CONTRACT }))).not.toThrow();
    // the chart takes the very same object (type-checked here: the library's contract accepts the runtime's)
    const chartContract: ChartContract = FOO_CONTRACT;
    expect(chartContract.watches).toEqual([FOO]);
    expect(chartContract.owns).toEqual([DEPLOYMENT]);
  });

  test('the SampleDB controller is wired exactly within its contract', () => {
    expect(() =>
      setupSampleDbController(manager({ contract: SAMPLEDB_CONTRACT, metrics: new RuntimeMetrics() })),
    ).not.toThrow();
    // its Secrets are owned by name only: an informer on them (owns) would need list and watch
    const byNameOnly = manager({ contract: SAMPLEDB_CONTRACT, metrics: new RuntimeMetrics() });
    expect(() =>
      new ControllerBuilder(byNameOnly, { name: 'x' }).for(SAMPLEDB_CONTRACT.watches[0]).owns(SECRET).complete(noop),
    ).toThrow('owns(v1 Secret) needs list, watch on secrets: declare it in contract.owns');
  });

  test('refuses an owned kind the contract only lets it watch, naming the missing verbs and resource', () => {
    const m = manager({ contract: defineContract({ watches: [FOO, DEPLOYMENT], status: true, events: true }) });
    expect(() => setupFooController(m)).toThrow(
      new ContractViolationError("controller 'foo'", [
        'owns(apps/v1 Deployment) needs create, update, patch, delete on deployments.apps: declare it in contract.owns',
      ]),
    );
  });

  test('reports every missing grant at once: primary kind, watched kind, event recorder', () => {
    const m = manager({ contract: defineContract({ watches: [CONFIGMAP], events: false }) });
    const builder = new ControllerBuilder(m, { name: 'widget' })
      .for(FOO)
      .watches(SECRET, () => [])
      .owns(CONFIGMAP);
    let error: unknown;
    try {
      builder.complete(noop);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContractViolationError);
    expect((error as Error).message).toBe(
      [
        "controller 'widget': wiring not granted by its contract:",
        '  - for(samplecontroller.k8s.io/v1alpha1 Foo) needs get, list, watch on foos.samplecontroller.k8s.io: declare it in contract.watches (or contract.owns)',
        '  - owns(v1 ConfigMap) needs create, update, patch, delete on configmaps: declare it in contract.owns',
        '  - watches(v1 Secret) needs get, list, watch on secrets: declare it in contract.watches (or contract.owns)',
      ].join('\n'),
    );
    expect(() => m.eventRecorder('example.com/widget')).toThrow(
      "event recorder 'example.com/widget': wiring not granted by its contract:\n  - an event recorder needs create, patch on events.events.k8s.io: set contract.events",
    );
  });

  test('refuses leader election and watch namespaces the contract does not grant', () => {
    const contract = defineContract({ watches: [CONFIGMAP], watchNamespaces: ['team-a', 'team-b'] });
    expect(() => manager({ contract, namespaces: ['team-a', 'team-c'], leaderElection: { leaseName: 'x' } })).toThrow(
      [
        'manager: wiring not granted by its contract:',
        "  - watching namespace 'team-c' needs it in contract.watchNamespaces (grants team-a, team-b)",
        '  - leader election needs get, create, update on leases.coordination.k8s.io: set contract.leaderElection',
      ].join('\n'),
    );
    // without WATCH_NAMESPACE the contract's namespaces are watched
    expect(manager({ contract }).watchNamespaces).toEqual(['team-a', 'team-b']);
    expect(manager({ contract, namespaces: ['team-b'] }).watchNamespaces).toEqual(['team-b']);
  });

  test("sharding: labels need the contract's label patch; hash and server do not; the assignment defaults to the contract's", () => {
    const ring = { ring: 'r', namespace: 'default' };
    const server = defineContract({ watches: [CONFIGMAP], sharding: { assignment: 'server' } });
    expect(manager({ contract: server, sharding: ring }).shardAssignment).toBe('server');
    expect(manager({ contract: server, sharding: { ...ring, assignment: 'hash' } }).shardAssignment).toBe('hash');
    expect(() => manager({ contract: server, sharding: { ...ring, assignment: 'labels' } })).toThrow(
      "sharding with assignment 'labels' writes the shard label: needs patch on the sharded kinds, which contract.sharding (assignment 'server') does not grant",
    );
    const labels = defineContract({ watches: [CONFIGMAP], sharding: true });
    expect(manager({ contract: labels, sharding: ring }).shardAssignment).toBe('labels');
    expect(manager({ contract: labels, sharding: { ...ring, assignment: 'server' } }).shardAssignment).toBe('server');
    expect(() => manager({ contract: defineContract({ watches: [CONFIGMAP] }), sharding: ring })).toThrow(
      'sharding needs get, list, watch, create, update, delete on leases.coordination.k8s.io',
    );
    expect(() => defineContract({ watches: [CONFIGMAP], sharding: { assignment: 'label' as 'labels' } })).toThrow(
      'contract.sharding.assignment: must be one of labels, hash, server, got "label"',
    );
  });

  test("sharding ranges 'namespaces': defaults to the contract's; over all namespaces the contract must grant reading them", () => {
    const ring = { ring: 'r', namespace: 'default', key: 'namespace' as const };
    const ranges = defineContract({ watches: [CONFIGMAP], sharding: { assignment: 'server', ranges: 'namespaces' } });
    expect(manager({ contract: ranges, sharding: ring }).shardRanges).toBe('namespaces');
    const even = defineContract({ watches: [CONFIGMAP], sharding: { assignment: 'server' } });
    expect(manager({ contract: even, sharding: ring }).shardRanges).toBe('even');
    expect(() => manager({ contract: even, sharding: { ...ring, ranges: 'namespaces' } })).toThrow(
      "sharding with ranges 'namespaces' over all namespaces needs get, list, watch on namespaces, which the contract does not grant",
    );
    // watching named namespaces, the ring cuts by those: nothing to read
    const watched = defineContract({
      watches: [CONFIGMAP],
      sharding: { assignment: 'server' },
      watchNamespaces: ['a', 'b'],
    });
    expect(manager({ contract: watched, sharding: { ...ring, ranges: 'namespaces' } }).shardRanges).toBe('namespaces');
    expect(() => manager({ contract: ranges, sharding: { ...ring, key: 'uid' } })).toThrow(
      "sharding.ranges: 'namespaces' needs key 'namespace' and assignment 'server'",
    );
    expect(() => defineContract({ watches: [CONFIGMAP], sharding: { ranges: 'namespaces' } })).toThrow(
      "contract.sharding.ranges: 'namespaces' cuts the apiserver's hash ranges: needs assignment 'server'",
    );
  });

  test('a manager without a contract checks nothing (tests and tools)', () => {
    const m = manager();
    expect(() => new ControllerBuilder(m, { name: 'free' }).for(FOO).owns(CONFIGMAP).complete(noop)).not.toThrow();
  });

  test('defineContract refuses empty and duplicate entries', () => {
    expect(() => defineContract({ watches: [] })).toThrow('contract.watches: must name at least one kind, got []');
    expect(() =>
      defineContract({ watches: [FOO], owns: [DEPLOYMENT, { apiVersion: 'apps/v1beta2', kind: 'Deployment' }] }),
    ).toThrow("contract.owns[1]: duplicate kind 'Deployment.apps'");
    expect(() => defineContract({ watches: [FOO], watchNamespaces: ['team-a', 'Team_B'] })).toThrow(
      "contract.watchNamespaces[1]: must be a DNS label, got 'Team_B'",
    );
  });

  test('defineContract lists every problem of connectsTo: a peer not owned, no labels, bad ports', () => {
    const STATEFULSET = resourceRef({ apiVersion: 'apps/v1', kind: 'StatefulSet' });
    expect(() =>
      defineContract({
        watches: [FOO],
        owns: [STATEFULSET],
        connectsTo: [{ podsOf: DEPLOYMENT, podLabels: {}, ports: [5432, 70000] }],
      }),
    ).toThrow(
      [
        'invalid controller contract:',
        "  - contract.connectsTo[0].podsOf: 'apps/v1 Deployment' must be a kind in contract.owns (a controller connects only to pods it manages)",
        '  - contract.connectsTo[0].podLabels: must name at least one label (an empty selector would allow every pod), got {}',
        '  - contract.connectsTo[0].ports[1]: must be a port number 1-65535, got 70000',
      ].join('\n'),
    );
    expect(() =>
      defineContract({
        watches: [FOO],
        owns: [STATEFULSET],
        connectsTo: [{ podsOf: STATEFULSET, podLabels: { app: 'db' }, ports: [5432] }],
      }),
    ).not.toThrow();
  });
});
