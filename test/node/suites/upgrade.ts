/**
 * SampleDB 0.1.0 → current on the real single-node cluster (issue 21's acceptance): the released CRD of
 * crd-baselines/ (v1 only, `restoreFrom` a string) with objects written at v1, then the current dist/ applied as
 * dist/APPLY.md says (v1 + v2, v2 storage, conversion by the operator's webhook). Runs first, on a fresh cluster:
 * it must install the old CRD before anything installs dist/ (`h.ensureDistApplied()`, reused by later suites).
 *
 * Checked: v1 still served as released and v2 the storage version; conversion through the operator's webhook (CA
 * bundle injected by the operator, its `/convert` request counter); every old object at v1 exactly as written and
 * at v2 converted; a v1 write after the upgrade reconciled; the storage migration trims `status.storedVersions` to
 * [v2]; an apiserver restart; and the conversion webhook down (operator scaled to 0): reads and writes at the
 * storage version go on, every request needing v1 fails with the apiserver's conversion error, nothing is lost.
 */
import { join } from 'path';
import { restartClusterProcess } from '../chaos/host';
import { NodeHarness, ROOT, assert, sleep, until } from '../harness';

const CRD = 'sampledbs.database.example.com';
const NS = 'upgrade';
const OPERATOR_NS = 'sampledb-operator-system';
const V1 = 'sampledbs.v1.database.example.com';
const V2 = 'sampledbs.v2.database.example.com';

export default async function upgrade(h: NodeHarness): Promise<void> {
  const { step } = h;
  const kubectl = h.kubectl.bind(h);
  const json = h.json.bind(h);
  const run = step.bind(h);
  /** name → restoreFrom written at v1 before the upgrade (undefined: none). */
  const written = new Map<string, string | undefined>();
  // The operator runs two replicas: the Service spreads /convert requests over both, and only the leader migrates
  // storage. So each metric is read from every running pod: counters summed, the migration's gauge as its maximum.
  const operatorMetrics = (): string[] => {
    const pods = json('get', 'pods', '-n', OPERATOR_NS, '-l', 'app.kubernetes.io/name=sampledb-operator').items.filter(
      (p: any) => p.status?.phase === 'Running',
    );
    assert(pods.length > 0, 'no running operator pod');
    return pods.map((pod: any) =>
      kubectl('get', '--raw', `/api/v1/namespaces/${OPERATOR_NS}/pods/${pod.metadata.name}:8080/proxy/metrics`),
    );
  };
  const samples = (texts: string[], name: string, labels: string): number[] =>
    texts.flatMap((text) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${name}{`) && labels.split(',').every((kv) => l.includes(kv)));
      return line === undefined ? [] : [Number(line.split(' ').pop())];
    });
  const total = (texts: string[], name: string, labels: string) =>
    samples(texts, name, labels).reduce((a, b) => a + b, 0);
  const highest = (texts: string[], name: string, labels: string) => Math.max(...samples(texts, name, labels));
  const readAll = (): string => {
    for (const [name, restoreFrom] of written) {
      const v1 = json('get', V1, name, '-n', NS);
      assert(v1.apiVersion === 'database.example.com/v1', `${name} at v1 came back as ${v1.apiVersion}`);
      assert(
        v1.spec.restoreFrom === restoreFrom,
        `${name} at v1: restoreFrom ${JSON.stringify(v1.spec.restoreFrom)}, written ${JSON.stringify(restoreFrom)}`,
      );
      const v2 = json('get', V2, name, '-n', NS);
      const expected = restoreFrom === undefined ? undefined : JSON.stringify({ backup: restoreFrom });
      assert(
        JSON.stringify(v2.spec.restoreFrom) === expected,
        `${name} at v2: restoreFrom ${JSON.stringify(v2.spec.restoreFrom)}, expected ${expected}`,
      );
    }
    return `${written.size} objects at v1 (strings as written) and v2 ({ backup })`;
  };

  await run('the SampleDB CRD of 0.1.0 (crd-baselines/) is installed, v1 only', () => {
    assert(!h.exists('crd', CRD), `${CRD} exists already: this suite must run first, on a fresh cluster`);
    kubectl('apply', '--server-side', '-f', join(ROOT, 'crd-baselines', `${CRD}.yaml`));
    kubectl('wait', '--for', 'condition=established', '--timeout=60s', `crd/${CRD}`);
    const crd = json('get', 'crd', CRD);
    assert(
      JSON.stringify(crd.spec.versions.map((v: any) => v.name)) === '["v1"]',
      `versions ${crd.spec.versions.map((v: any) => v.name)}`,
    );
    return `storedVersions ${JSON.stringify(crd.status.storedVersions)}`;
  });

  await run('objects written at v1 with restoreFrom strings (0.1.0 manifests)', () => {
    kubectl('create', 'namespace', NS);
    const objects = [];
    for (let i = 0; i < 12; i++) {
      const name = `old-${i}`;
      const restoreFrom = i % 4 === 3 ? undefined : `nightly-${i}`;
      written.set(name, restoreFrom);
      objects.push({
        apiVersion: 'database.example.com/v1',
        kind: 'SampleDB',
        metadata: { name, namespace: NS },
        spec: {
          version: '16',
          backupSchedule: '0 2 * * *',
          backupRetention: 3,
          ...(restoreFrom ? { restoreFrom } : {}),
        },
      });
    }
    h.apply(...objects);
    return `${objects.length} SampleDBs in namespace ${NS}, ${[...written.values()].filter(Boolean).length} with restoreFrom`;
  });

  await run('the current dist/ applied as dist/APPLY.md says (images, synth, the four commands)', () =>
    h.ensureDistApplied(),
  );

  await run('v1 is still served with a string restoreFrom, v2 (object restoreFrom) is the storage version', () => {
    const crd = json('get', 'crd', CRD);
    const versions = crd.spec.versions.map(
      (v: any) =>
        `${v.name}:${v.served ? 'served' : 'unserved'}${v.storage ? ':storage' : ''}:${v.schema.openAPIV3Schema.properties.spec.properties.restoreFrom.type}`,
    );
    assert(
      JSON.stringify(versions) === '["v1:served:string","v2:served:storage:object"]',
      `versions ${versions.join(', ')}`,
    );
    return versions.join(', ');
  });

  await run(
    "conversion goes through the operator's webhook (Service, CA bundle injected by the operator, /convert requests served)",
    async () => {
      const conversion = json('get', 'crd', CRD).spec.conversion;
      assert(conversion.strategy === 'Webhook', `strategy ${conversion.strategy}`);
      const service = conversion.webhook.clientConfig.service;
      assert(
        service.name === 'sampledb-operator-webhook' &&
          service.namespace === OPERATOR_NS &&
          service.path === '/convert',
        `service ${JSON.stringify(service)}`,
      );
      const caBundle: string = await until(
        'the operator injects the CA bundle into the CRD',
        () => json('get', 'crd', CRD).spec.conversion.webhook.clientConfig.caBundle,
        120,
        1000,
      );
      const secret = json('get', 'secret', 'sampledb-operator-webhook-certs', '-n', OPERATOR_NS);
      assert(
        Buffer.from(caBundle, 'base64').toString() === Buffer.from(secret.data['ca-bundle.crt'], 'base64').toString(),
        "the CRD caBundle is not the bundle in the operator's Secret",
      );
      json('get', V1, 'old-0', '-n', NS); // a v1 read of a v1-stored object goes through v2... and back: one conversion at least
      const served = await until(
        'the operator counts /convert requests',
        () =>
          total(operatorMetrics(), 'controller_runtime_webhook_requests_total', 'webhook="/convert",code="200"') ||
          undefined,
        60,
        1000,
      );
      return `caBundle from Secret ${OPERATOR_NS}/sampledb-operator-webhook-certs; controller_runtime_webhook_requests_total{webhook="/convert",code="200"} ${served}`;
    },
  );

  await run(
    'every object written before the upgrade reads back at every served version (at v1 exactly the string written)',
    readAll,
  );

  await run('a v1 write after the upgrade works and is reconciled by the operator (which reconciles v2)', async () => {
    h.apply({
      apiVersion: 'database.example.com/v1',
      kind: 'SampleDB',
      metadata: { name: 'upgrade-v1', namespace: 'default' },
      spec: { version: '16', replicas: 1 },
    });
    const s = await until(
      'upgrade-v1 Running with its pod ready',
      () => {
        const status = json('get', V1, 'upgrade-v1', '-n', 'default').status;
        return status?.phase === 'Running' && status?.readyReplicas === 1 ? status : undefined;
      },
      300,
      2000,
    );
    const v2 = json('get', V2, 'upgrade-v1', '-n', 'default');
    assert(v2.status?.currentPrimary === 'upgrade-v1-0', `v2 status.currentPrimary ${v2.status?.currentPrimary}`);
    // a v1 update of an old object (read-modify-write at v1): the string survives, v2 sees the change
    const old = json('get', V1, 'old-0', '-n', NS);
    old.spec.backupRetention = 5;
    h.sh('kubectl', ['replace', '-f', '-'], { input: JSON.stringify(old) });
    const back = json('get', V2, 'old-0', '-n', NS);
    assert(
      back.spec.backupRetention === 5 && back.spec.restoreFrom?.backup === written.get('old-0'),
      `old-0 at v2 after the v1 update: ${JSON.stringify(back.spec)}`,
    );
    return `phase ${s.phase}, ready ${s.readyReplicas}, primary ${v2.status.currentPrimary}; v1 update of old-0 kept restoreFrom ${written.get('old-0')}`;
  });

  await run('storage migration leaves status.storedVersions with only the storage version', async () => {
    const crd = await until(
      'storedVersions == [v2]',
      () => {
        const c = json('get', 'crd', CRD);
        return JSON.stringify(c.status.storedVersions) === '["v2"]' ? c : undefined;
      },
      300,
      2000,
    );
    const condition = crd.status.conditions.find((c: any) => c.type === 'StorageVersionMigrated');
    assert(condition?.status === 'True', `StorageVersionMigrated ${JSON.stringify(condition)}`);
    const metrics = operatorMetrics();
    const complete = highest(metrics, 'storage_version_migration_complete', `crd="${CRD}"`);
    assert(complete === 1, `storage_version_migration_complete ${complete}`);
    const rewritten = total(metrics, 'storage_version_migration_objects_total', `crd="${CRD}",result="rewritten"`);
    return `storedVersions ["v2"]; condition: ${condition.message}; storage_version_migration_objects_total{result="rewritten"} ${rewritten}`;
  });

  await run('after an apiserver restart every object is still readable at every version', async () => {
    // the same kube-apiserver command line, environment and folder (cluster.sh has no restart), on the same etcd.
    // SIGTERM, then SIGKILL after 20 s: its graceful stop drains for a full minute on this cluster (08:28:29 →
    // 08:29:29 in one CI run), which once outlasted the suite's wait and left the cluster without an apiserver.
    await restartClusterProcess(h.dir, 'apiserver', 'apiserver.log');
    await until(
      'the apiserver answers',
      () => h.sh('kubectl', ['get', '--raw', '/readyz'], { allowFail: true }).trim() === 'ok' || undefined,
      120,
      1000,
    );
    const note = await until(
      'reads at v1 and v2 after the restart',
      () => {
        try {
          return readAll();
        } catch {
          return undefined;
        }
      },
      120,
      2000,
    );
    assert(
      JSON.stringify(json('get', 'crd', CRD).status.storedVersions) === '["v2"]',
      'storedVersions changed by the restart',
    );
    return note;
  });

  await run(
    'with the conversion webhook down (operator scaled to 0): storage-version requests work, v1 requests fail with the conversion error, no data is lost',
    async () => {
      kubectl('scale', 'deployment', 'sampledb-operator', '-n', OPERATOR_NS, '--replicas=0');
      let down: string;
      try {
        await until(
          'no operator pod left',
          () =>
            json('get', 'pods', '-n', OPERATOR_NS, '-l', 'app.kubernetes.io/name=sampledb-operator').items.length ===
              0 || undefined,
          120,
          1000,
        );
        await sleep(2000);
        const v2 = json('get', V2, 'old-1', '-n', NS);
        assert(v2.spec.restoreFrom?.backup === written.get('old-1'), 'v2 read while the webhook is down');
        const v2list = json('get', V2, '-n', NS).items.length;
        const v1read = h.sh('kubectl', ['get', V1, 'old-1', '-n', NS, '-o', 'name'], { allowFail: true });
        assert(
          /conversion webhook for database\.example\.com\/v2, Kind=SampleDB failed/.test(v1read),
          `v1 read while the webhook is down: ${v1read}`,
        );
        const v1write = h.sh('kubectl', ['create', '-f', '-'], {
          allowFail: true,
          input: JSON.stringify({
            apiVersion: 'database.example.com/v1',
            kind: 'SampleDB',
            metadata: { name: 'during-outage', namespace: NS },
            spec: { version: '16' },
          }),
        });
        assert(
          /conversion webhook/.test(v1write) && !h.exists(V2, 'during-outage', '-n', NS),
          `v1 write while the webhook is down: ${v1write}`,
        );
        down = `down: v2 get and list (${v2list}) answered; v1 get: "${v1read.trim().split('\n').pop()!.slice(0, 160)}"; v1 create refused the same way`;
      } finally {
        // whatever happened, the next suites get the operator back
        kubectl('scale', 'deployment', 'sampledb-operator', '-n', OPERATOR_NS, '--replicas=1');
      }
      await until(
        'the operator Available again',
        () =>
          (json('get', 'deployment', 'sampledb-operator', '-n', OPERATOR_NS).status?.availableReplicas ?? 0) >= 1 ||
          undefined,
        180,
        1000,
      );
      const after = await until(
        'every object readable at v1 and v2 again',
        () => {
          try {
            return readAll();
          } catch {
            return undefined;
          }
        },
        120,
        2000,
      );
      return `${down}; back up: ${after}`;
    },
  );

  await run('the upgrade suite cleans up after itself', () => {
    kubectl('delete', 'namespace', NS, '--wait=false');
    kubectl('delete', V2, 'upgrade-v1', '-n', 'default', '--wait=false');
    return `namespace ${NS} and default/upgrade-v1 deleted`;
  });
}
