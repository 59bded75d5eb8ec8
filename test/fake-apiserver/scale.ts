/** autoscaling/v1 Scale view of a resource with a scale subresource. */
import { getJsonPath, isObject } from './json-util';
import { ResourceInfo } from './resources';

export function toScale(res: ResourceInfo, obj: any): any {
  const scale = res.scale!;
  const status: any = { replicas: getJsonPath(obj, scale.statusReplicasPath) ?? 0 };
  if (scale.labelSelectorPath) {
    const sel = getJsonPath(obj, scale.labelSelectorPath);
    if (sel !== undefined) status.selector = sel;
  }
  if (!res.custom && isObject(obj.spec?.selector)) {
    status.selector = Object.entries<string>(obj.spec.selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  }
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp },
    spec: { replicas: getJsonPath(obj, scale.specReplicasPath) ?? 0 },
    status,
  };
}
