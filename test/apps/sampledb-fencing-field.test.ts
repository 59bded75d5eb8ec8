import { Testing } from 'cdk8s';
import { SampleDbChart } from '../../apps/sampledb/sampledb-chart';
import { desiredStatefulSet } from '../../controllers/sampledb/statefulset';
import { describeRealApiServer } from '../envtest';

/**
 * spec.anomalies.isolationFenceSeconds (isolated-primary self-fencing, controllers/sampledb/fencing.ts) on
 * kube-apiserver: defaulted to 5 inside spec.anomalies, 0 (off) accepted, out-of-range values refused naming the
 * field; what the apiserver stored reaches the database container as SAMPLEDB_ISOLATION_FENCE_SECONDS.
 */
const crd = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb')).find(
  (m) => m.kind === 'CustomResourceDefinition',
);
const STORAGE = crd.spec.versions.find((v: { storage: boolean }) => v.storage).name;
// Only the storage version is used: no conversion webhook runs here.
crd.spec.conversion = { strategy: 'None' };

describeRealApiServer(
  'SampleDB spec.anomalies.isolationFenceSeconds',
  (plane) => {
    test('defaulted to 5, 0 accepted (off), -1 and 301 refused naming the field; the stored value reaches the pod template', async () => {
      const ns = await plane().createNamespace('fence-');
      const create = (name: string, anomalies: object) =>
        plane().request('POST', `/apis/database.example.com/${STORAGE}/namespaces/${ns}/sampledbs`, {
          apiVersion: `database.example.com/${STORAGE}`,
          kind: 'SampleDB',
          metadata: { name },
          spec: { version: '16.4', replicas: 3, anomalies },
        });
      const defaulted = await create('dflt', {});
      expect(defaulted.code).toBe(201);
      expect(defaulted.body.spec.anomalies.isolationFenceSeconds).toBe(5);
      const off = await create('off', { isolationFenceSeconds: 0 });
      expect(off.code).toBe(201);
      for (const bad of [-1, 301]) {
        const r = await create(`bad${bad < 0 ? 'neg' : 'big'}`, { isolationFenceSeconds: bad });
        expect(r.code).toBe(422);
        expect(JSON.stringify(r.body)).toContain('spec.anomalies.isolationFenceSeconds');
      }
      const env = (db: any) =>
        (
          desiredStatefulSet(db, { version: '16.4', image: 'postgres:16.4' }) as any
        ).spec.template.spec.containers[0].env.find(
          (e: { name: string }) => e.name === 'SAMPLEDB_ISOLATION_FENCE_SECONDS',
        )?.value;
      expect(env(defaulted.body)).toBe('5');
      expect(env(off.body)).toBe('0');
    });
  },
  { crds: [crd], shared: true },
);
