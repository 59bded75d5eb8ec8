/**
 * The names a shard ring with the labels assignment shares between the runtime (runtime/shard-labels.ts,
 * runtime/shard-label-webhook.ts) and the chart (`Operator` with `sharding`): the label that carries an object's
 * member, and the path of the ring's labelling webhook, so the two cannot disagree.
 */

/** The label that carries an object's member in `ring`: `shard.cdk8s-operator.io/<ring>`. */
export function shardLabel(ring: string): string {
  return `shard.cdk8s-operator.io/${ring}`;
}

/**
 * The path of a ring's labelling webhook, one per ring: every sharded kind's creates go to the same handler, which
 * reads and writes only metadata.
 */
export function shardLabelWebhookPath(ring: string): string {
  return `/label-shard-${ring}`;
}
