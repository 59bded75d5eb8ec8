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

/**
 * The same controller run as a shard ring (docs/sharding.md): `FOO_CONTRACT` plus the member Leases and the shard
 * label on Foos (`sharding: true`, the labels assignment). The binary declares it when started with
 * `--sharding-ring` (main.ts); an `Operator` with `sharding` is built from it. The demo chart (apps/foo) does not
 * shard, so it keeps `FOO_CONTRACT`: no `patch` on Foos, no ring Leases.
 */
export const FOO_SHARDED_CONTRACT = defineContract({ ...FOO_CONTRACT, sharding: true });

/**
 * The shard ring with the apiserver's ranges cut by the cluster's namespaces (`--sharding-ranges=namespaces`, key
 * namespace): no shard label (assignment `server`), and reading the namespaces instead.
 */
export const FOO_RANGES_CONTRACT = defineContract({
  ...FOO_CONTRACT,
  sharding: { assignment: 'server', ranges: 'namespaces' },
});
