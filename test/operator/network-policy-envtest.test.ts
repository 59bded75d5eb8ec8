import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { SampleDbChart } from '../../apps/sampledb/sampledb-chart';
import { SAMPLEDB_CONTRACT } from '../../controllers/sampledb/contract';
import { describeRealApiServer, kubectl } from '../envtest';

// The NetworkPolicy the Operator derives from SAMPLEDB_CONTRACT.connectsTo, created on a real kube-apiserver:
// its NetworkPolicy validation accepts it and it reads back unchanged (the egress to the database pods included).
describeRealApiServer(
  'NetworkPolicy derived from the contract, on the apiserver',
  (plane) => {
    jest.setTimeout(180_000);
    let dir: string;
    let kubeconfig: string;
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netpol-'));
      kubeconfig = path.join(dir, 'kubeconfig');
      plane().writeKubeconfig(kubeconfig);
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    test('egress to the SampleDB database pods on 5432 in each watched namespace, and nowhere else', async () => {
      const chart = new SampleDbChart(Testing.app(), 'sampledb', { watchNamespaces: ['team-a', 'team-b'] });
      const synthesized = Testing.synth(chart).find((o) => o.kind === 'NetworkPolicy');
      const file = path.join(dir, 'policy.yaml');
      fs.writeFileSync(file, YAML.stringify(synthesized));

      const ns = await kubectl(kubeconfig, ['create', 'namespace', synthesized.metadata.namespace]);
      expect(ns.stderr).toBe('');
      const created = await kubectl(kubeconfig, ['create', '-f', file]);
      expect({ code: created.code, stderr: created.stderr }).toStrictEqual({ code: 0, stderr: '' });
      const read = await kubectl(kubeconfig, ['get', '-f', file, '-o', 'json']);
      const stored = JSON.parse(read.stdout);

      expect(stored.spec).toStrictEqual(synthesized.spec);
      const peer = SAMPLEDB_CONTRACT.connectsTo[0];
      const toDatabases = stored.spec.egress.filter((r: { ports: { port: number }[] }) =>
        r.ports.some((p) => p.port === 5432),
      );
      expect(toDatabases).toStrictEqual([
        {
          ports: [{ port: 5432, protocol: 'TCP' }],
          to: ['team-a', 'team-b'].map((n) => ({
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': n } },
            podSelector: { matchLabels: peer.podLabels },
          })),
        },
      ]);
      // the rest of egress: the apiserver endpoints and cluster DNS only
      expect(stored.spec.egress).toHaveLength(3);
      expect(stored.spec.policyTypes.sort()).toStrictEqual(['Egress', 'Ingress']);
    });
  },
  { shared: true },
);
