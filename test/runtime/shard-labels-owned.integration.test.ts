/**
 * The shard ring's assigner writes its label only on the ring's objects (runtime/shard-labels.ts, the manager's
 * `assignable`), behind the real kube-apiserver: a sharded controller `for(ConfigMap).owns(Secret)` with the labels
 * assignment. A Secret a ConfigMap controls (created before the ring, so unlabelled) is labelled with its owner's
 * member; a Secret with no owner, or controlled by another kind, is another controller's or a user's: the ring never
 * writes on it. Before, the assigner's watch (`<label> notin (<members>)`) took every object of every sharded kind:
 * a sharded Foo controller on a cluster labelled every Deployment there, other operators' included (with the RBAC
 * its `owns` grants), and each member then cached its share of them. The node suite (test/node/suites/sharding.ts)
 * checks it on a cluster with other operators' Deployments.
 */
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { Manager } from '../../runtime/manager';
import { KubeObject, OwnerReference } from '../../runtime/resource';
import { shardLabel } from '../../runtime/shard-labels';
import { describeRealApiServer } from '../envtest';
import { ringMember, until } from './support';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const SECRET = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' };
const RING = 'slo';
const LABEL = shardLabel(RING);

describeRealApiServer(
  "the shard label on owned kinds: only objects a sharded controller's primary controls",
  (plane) => {
    const members: Manager[] = [];
    let admin: RestClient;

    afterAll(async () => {
      for (const m of members) await m.stop();
      admin?.close();
    }, 60_000);

    test("the ring labels a Secret a ConfigMap controls, never a Secret without an owner or another kind's", async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      const ns = await plane().createNamespace('slo-');
      const ringNamespace = await plane().createNamespace('slo-ring-');
      const controlledBy = (owner: KubeObject): OwnerReference[] => [
        {
          apiVersion: owner.apiVersion!,
          kind: owner.kind!,
          name: owner.metadata!.name!,
          uid: owner.metadata!.uid!,
          controller: true,
        },
      ];
      const primary = await admin.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm-a', namespace: ns },
      });
      const otherOwner = await admin.create({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'other-owner', namespace: ns },
      });
      const secret = (name: string, ownerReferences?: OwnerReference[]) =>
        admin.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, ownerReferences } });
      await secret('owned', controlledBy(primary));
      await secret('no-owner');
      await secret('other-kinds', controlledBy(otherOwner));

      for (let i = 0; i < 2; i++) {
        const manager = ringMember({
          kubeConfig: plane().kubeConfig(),
          namespaces: [ns],
          sharding: { ring: RING, namespace: ringNamespace },
        });
        new ControllerBuilder(manager, { name: 'noop' })
          .for(CONFIGMAP)
          .owns(SECRET)
          .complete({ reconcile: async () => undefined });
        await manager.start();
        members.push(manager);
      }
      await until(
        'both members act on a 2-member view',
        () => members.every((m) => m.shard!.members.length === 2),
        30_000,
      );
      const label = async (resource: typeof SECRET, name: string) =>
        (await admin.get(resource, name, ns)).metadata?.labels?.[LABEL];
      await until(
        'the ConfigMap and the Secret it controls labelled',
        async () => (await label(CONFIGMAP, 'cm-a')) !== undefined && (await label(SECRET, 'owned')) !== undefined,
      );
      // The owned Secret follows its owner (its shard key is the owner's UID).
      expect(await label(SECRET, 'owned')).toBe(await label(CONFIGMAP, 'cm-a'));
      // The assigner's Secret watch hands it the Secrets in order and its writes leave in that order: once a Secret
      // created after the others is labelled, a write for any of them would have been sent before.
      await secret('owned-later', controlledBy(primary));
      await until('a Secret created later labelled', async () => (await label(SECRET, 'owned-later')) !== undefined);
      for (const name of ['no-owner', 'other-kinds']) {
        const s = await admin.get(SECRET, name, ns);
        expect([name, s.metadata?.labels?.[LABEL]]).toEqual([name, undefined]);
        const managers = ((s.metadata?.managedFields ?? []) as Array<{ manager?: string }>).map((f) => f.manager);
        expect(managers).not.toContain('cdk8s-operator-sharding');
      }
      // Nor does a member cache them: the members' Secrets are the owned ones, each on one member.
      const cached = members.flatMap((m) =>
        m
          .getInformer(SECRET)
          .cache.list()
          .map((o) => o.metadata!.name),
      );
      expect(cached.sort()).toEqual(['owned', 'owned-later']);
    }, 90_000);
  },
  { shared: true },
);
