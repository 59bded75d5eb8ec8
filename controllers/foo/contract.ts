/**
 * What the Foo controller does against the API, declared once: the controller is wired from it
 * (the manager refuses anything beyond it) and the chart (apps/foo) derives RBAC from it.
 */
import { DEPLOYMENT, FOO } from './types';
import { defineContract } from '../../runtime';

export const FOO_CONTRACT = defineContract({
  watches: [FOO],
  owns: [DEPLOYMENT],
  status: true,
  events: true,
  leaderElection: true,
});
