/**
 * The account an unrecovered chaos fault logs, read from a real kube-apiserver: the SampleDB's status as the operator
 * wrote it and the events about it and its pods (events.k8s.io, as the operator records them), oldest first.
 */
import { kube, KubeAccess } from './kube';
import { whyNotRecovered } from './why-not-recovered';
import { API, sampleDbCrdManifest } from '../../controllers/sampledb/harness';
import { describeRealApiServer } from '../../envtest';

const NS = 'default';
const DB = 'chaos-db';
const SDB_PATH = `/apis/${API}/namespaces/${NS}/sampledbs/${DB}`;

describeRealApiServer(
  'chaos: why a fault did not recover',
  (plane) => {
    test("the database's primary, instances, conditions and last events, oldest first; events of others left out", async () => {
      const p = plane();
      const k: KubeAccess = { server: p.url, token: p.admin.token, ca: Buffer.from(p.ca) };
      await kube(k, 'POST', `/apis/${API}/namespaces/${NS}/sampledbs`, {
        apiVersion: API,
        kind: 'SampleDB',
        metadata: { name: DB, namespace: NS },
        spec: { version: '16.4', replicas: 3 },
      });
      await kube(k, 'PATCH', `${SDB_PATH}/status`, {
        status: {
          currentPrimary: `${DB}-2`,
          instances: [{ name: `${DB}-0`, role: 'standby', ready: true, timeline: 3 }],
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'NoFailoverCandidate',
              message: `primary ${DB}-2 unavailable and no standby answers`,
              lastTransitionTime: '2026-11-30T12:00:00Z',
            },
          ],
        },
      });
      const event = (name: string, regarding: string, reason: string, at: string) =>
        kube(k, 'POST', `/apis/events.k8s.io/v1/namespaces/${NS}/events`, {
          metadata: { name, namespace: NS },
          eventTime: at,
          reportingController: 'sampledb-operator',
          reportingInstance: 'sampledb-operator-0',
          action: 'Reconcile',
          type: 'Warning',
          reason,
          note: `${reason} of ${regarding}`,
          regarding: { apiVersion: 'v1', kind: 'Pod', name: regarding, namespace: NS },
        });
      await event('a-later', `${DB}-2`, 'InstanceFenced', '2026-11-30T12:00:05.000000Z');
      await event('b-earlier', DB, 'FailoverStarted', '2026-11-30T12:00:01.000000Z');
      await event('c-other', 'another-db', 'FailoverStarted', '2026-11-30T12:00:03.000000Z');

      const lines = (await whyNotRecovered(k, SDB_PATH, NS, DB)).split('\n');
      expect(lines).toStrictEqual([
        `chaos:   ${DB}: primary ${DB}-2, target none, instances [{"name":"${DB}-0","ready":true,"role":"standby","timeline":3}]`,
        `chaos:   condition Ready=False NoFailoverCandidate: primary ${DB}-2 unavailable and no standby answers`,
        `chaos:   event 2026-11-30T12:00:01.000000Z ${DB} FailoverStarted (x1): FailoverStarted of ${DB}`,
        `chaos:   event 2026-11-30T12:00:05.000000Z ${DB}-2 InstanceFenced (x1): InstanceFenced of ${DB}-2`,
      ]);
    });

    test('a database that cannot be read is said so, not thrown', async () => {
      const p = plane();
      const k: KubeAccess = { server: p.url, token: p.admin.token, ca: Buffer.from(p.ca) };
      expect(await whyNotRecovered(k, `/apis/${API}/namespaces/${NS}/sampledbs/absent`, NS, 'absent')).toMatch(
        /^chaos: {3}could not read absent's conditions and events: GET .*: 404/,
      );
    });
  },
  { crds: [sampleDbCrdManifest()], shared: true },
);
