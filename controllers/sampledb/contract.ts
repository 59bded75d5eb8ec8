/**
 * What the SampleDB controller does against the API, declared once: the controller is wired from
 * it (the manager refuses anything beyond it) and the chart (apps/sampledb) derives RBAC from it.
 */
import { defineContract } from '../../runtime';
import { CRONJOB, JOB, POD, PVC, SAMPLEDB, SECRET, SERVICE, STATEFULSET } from './types';

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
});
