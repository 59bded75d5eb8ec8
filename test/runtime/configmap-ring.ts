/**
 * The fixture of the shard label tests on the real apiserver (shard-label-order, shard-label-heal): a namespace of
 * ConfigMaps created before any member starts, and members of one label ring over them, each reaching the apiserver
 * through its own fault proxy and reconciling nothing (only their labels count).
 */
import { ringMember, until } from './support';
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { ControlPlane } from '../../runtime/envtest';
import { Manager } from '../../runtime/manager';
import { shardLabel } from '../../runtime/shard-labels';
import { memberLeaseName, rendezvousOwner } from '../../runtime/sharding';
import { FaultProxy } from '../envtest';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

export interface RingMember {
  readonly manager: Manager;
  readonly proxy: FaultProxy;
  /** Its Lease's name: the value of the ring's label on the objects it owns. */
  readonly name: string;
}

/** Registers the fixture's beforeAll/afterAll in the calling describe block. */
export function configMapRing(plane: () => ControlPlane, options: { ns: string; ring: string; configMaps: number }) {
  const { ns, ring } = options;
  const label = shardLabel(ring);
  let admin: RestClient;
  /** The ConfigMaps' UIDs (the ring's key) by name. */
  const uids = new Map<string, string>();
  const proxies: FaultProxy[] = [];
  const started: Manager[] = [];

  beforeAll(async () => {
    admin = RestClient.fromKubeConfig(plane().kubeConfig());
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (let i = 0; i < options.configMaps; i++) {
      const cm = await admin.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: ns },
      });
      uids.set(cm.metadata!.name!, cm.metadata!.uid!);
    }
  }, 120_000);
  afterAll(async () => {
    for (const m of started) await m.stop();
    for (const p of proxies) await p.close();
    admin?.close();
  }, 60_000);

  /** A new member, not started. */
  async function member(): Promise<RingMember> {
    const proxy = await FaultProxy.start(plane());
    proxies.push(proxy);
    const manager = ringMember({ kubeConfig: proxy.kubeConfig(), namespace: ns, sharding: { ring, namespace: ns } });
    new ControllerBuilder(manager, { name: 'noop' }).for(CONFIGMAP).complete({ reconcile: async () => undefined });
    return { manager, proxy, name: memberLeaseName(ring, manager.identity) };
  }

  async function start(m: RingMember): Promise<void> {
    started.push(m.manager);
    await m.manager.start();
  }

  /** Each ConfigMap's ring label, by name. */
  async function labels(): Promise<Map<string, string | undefined>> {
    const items = (await admin.list(CONFIGMAP, { namespace: ns })).items.filter((o) => uids.has(o.metadata!.name!));
    return new Map(items.map((o) => [o.metadata!.name!, o.metadata?.labels?.[label]]));
  }

  /** Every ConfigMap labelled with its owner among `members`, and each member caching exactly its share. */
  async function settled(members: readonly RingMember[]): Promise<Map<string, string | undefined>> {
    const names = members.map((m) => m.name);
    const labelled = await until(
      `every ConfigMap labelled with its owner among ${names.length} members`,
      async () => {
        const now = await labels();
        return [...uids].every(([n, uid]) => now.get(n) === rendezvousOwner(uid, names)) ? now : undefined;
      },
      60_000,
      200,
    );
    for (const m of members) {
      const mine = [...labelled].filter(([, owner]) => owner === m.name).length;
      await until(
        `${m.name} caches exactly its share`,
        () => m.manager.getInformer(CONFIGMAP).cache.size === mine,
        20_000,
      );
    }
    return labelled;
  }

  /** The label writes the members made (assignments and moves), from their metrics. */
  async function labelWrites(members: readonly RingMember[]): Promise<number> {
    let total = 0;
    for (const m of members) {
      for (const reason of ['assign', 'move']) {
        total += await m.manager.metrics.value('controller_runtime_shard_label_writes_total', { ring, reason });
      }
    }
    return total;
  }

  /**
   * The members' label writes once their count has held for a second. A member counts a write when its response
   * arrives, after the apiserver applied it: a count read as soon as the labels look settled can miss writes still
   * on their way back (a CI rehearsal at a load average of 12 counted 145 of 150).
   */
  async function settledLabelWrites(members: readonly RingMember[]): Promise<number> {
    let last = await labelWrites(members);
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await labelWrites(members);
      if (now === last) return now;
      last = now;
    }
  }

  /** The ConfigMap label writes a member sent since request `from` of its proxy. */
  const labelPatches = (m: RingMember, from: number) =>
    m.proxy.requests.slice(from).filter((r) => r.verb === 'patch' && r.resource === 'configmaps');

  return { uids, member, start, labels, settled, settledLabelWrites, labelPatches };
}
