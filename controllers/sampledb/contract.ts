/**
 * What the SampleDB controller does against the API, declared once: the controller is wired from
 * it (the manager refuses anything beyond it) and the chart (apps/sampledb) derives RBAC and
 * NetworkPolicy egress from it.
 */
import { POSTGRES_PORT } from './pods';
import { CRONJOB, JOB, LABEL_COMPONENT, LABEL_NAME, POD, PVC, SAMPLEDB, SECRET, SERVICE, STATEFULSET } from './types';
import { defineContract } from '../../runtime';

export const SAMPLEDB_CONTRACT = defineContract({
  watches: [SAMPLEDB],
  // The credentials Secrets are read by the names the controller gives them: no list/watch of Secrets.
  ownsByName: [SECRET],
  // Database pods (created by the StatefulSet): the role label, and deleting a pod fences an old primary.
  owns: [SERVICE, STATEFULSET, JOB, CRONJOB, PVC, POD],
  status: true,
  finalizers: true,
  events: true,
  leaderElection: true,
  // Serves the CRD's v1 ↔ v2 conversion and migrates stored v1 objects to v2 (controllers/sampledb/conversion.ts).
  conversion: [SAMPLEDB],
  // The controller asks each PostgreSQL instance for its role and WAL position, and promotes standbys.
  connectsTo: [
    {
      podsOf: STATEFULSET,
      podLabels: { [LABEL_NAME]: 'sampledb', [LABEL_COMPONENT]: 'database' },
      ports: [POSTGRES_PORT],
    },
  ],
  // Admission checks CEL cannot make (controllers/sampledb/webhooks.ts): restoreFrom must name a source that
  // exists; storage and its class default from the namespace's annotations.
  webhooks: [
    { type: 'validating', for: SAMPLEDB, operations: ['CREATE', 'UPDATE'] },
    { type: 'defaulting', for: SAMPLEDB, operations: ['CREATE'], readsNamespace: true },
  ],
});
