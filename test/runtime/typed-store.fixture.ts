/**
 * Compiled by typed-store.test.ts: the generated types of the Foo CRD (imports/) flow through
 * `resourceRef<Foo>` into the store, the reconciler and `updateStatus`. Each `@ts-expect-error` marks a line that must
 * not compile; the test also compiles this file without those markers and checks each error.
 */
import { Deployment, DEPLOYMENT, Foo, FOO } from '../../controllers/foo/types';
import { KubeClient, Manager, Stored, updateStatus } from '../../runtime';

export function typedRead(manager: Manager): Array<number | string | undefined> {
  const foos = manager.getStore(FOO);
  const foo: Stored<Foo> | undefined = foos.get({ namespace: 'default', name: 'example' });
  const replicas: number | undefined = foo?.spec?.replicas; // FooSpec, generated from the CRD
  const uid: string | undefined = foo?.metadata.uid; // Stored: name, uid, resourceVersion always set
  const available = manager
    .getStore(DEPLOYMENT)
    .list('default')
    .map((d: Stored<Deployment>) => d.status?.availableReplicas);
  // @ts-expect-error a field the CRD does not have: FooSpec has `replicas`, not `replica`
  const typo = foo?.spec?.replica;
  // @ts-expect-error a field of the wrong type: deploymentName is a string
  const wrongType: number | undefined = foo?.spec?.deploymentName;
  return [replicas, uid, ...available, typo, wrongType];
}

export async function typedStatusWrite(client: KubeClient, foo: Stored<Foo>): Promise<Array<Stored<Foo> | undefined>> {
  const written: Stored<Foo> | undefined = await updateStatus(client, foo, { availableReplicas: 1 }); // FooStatus
  // @ts-expect-error a status field the CRD does not have: FooStatus has `availableReplicas`
  const typo = await updateStatus(client, foo, { availableReplica: 1 });
  // @ts-expect-error a status field of the wrong type: availableReplicas is a number
  const wrongType = await updateStatus(client, foo, { availableReplicas: '1' });
  return [written, typo, wrongType];
}
