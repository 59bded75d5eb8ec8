import { IConstruct } from 'constructs';
import { CrdManifest } from '../apiserver/crd-manifest';
import { CustomResourceDefinition } from '../crd/custom-resource-definition';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';

/** @internal */
export function isCrd(x: unknown): x is ICustomResourceDefinition {
  return typeof x === 'object' && x !== null && typeof (x as ICustomResourceDefinition).toManifest === 'function';
}

/** The CRDs of the app the construct is in: their schemas type `object` for the kinds they define. @internal */
export function appCrds(scope: IConstruct): CrdManifest[] {
  return scope.node.root.node
    .findAll()
    .filter(CustomResourceDefinition.isCustomResourceDefinition)
    .map((c) => c.toManifest());
}
