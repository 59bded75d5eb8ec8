import { IConstruct } from 'constructs';
import { ICustomResourceDefinition } from '../crd/crd-spec';

/**
 * Whether a construct implements `ICustomResourceDefinition` (duck-typed, so it matches the
 * `CustomResourceDefinition` construct, imported definitions and test doubles alike).
 */
export function isCustomResourceDefinitionLike(c: unknown): c is ICustomResourceDefinition {
  const x = c as Partial<ICustomResourceDefinition> | undefined;
  return typeof x === 'object' && x !== null
    && typeof x.group === 'string'
    && typeof x.names === 'object' && x.names !== null && typeof x.names.kind === 'string'
    && typeof x.toManifest === 'function'
    && typeof x.schemaFor === 'function'
    && typeof x.apiVersionFor === 'function';
}

/** Every definition of `group`/`kind` in the construct tree of `scope`. */
export function findDefinitions(scope: IConstruct, group: string, kind: string): ICustomResourceDefinition[] {
  return scope.node.root.node.findAll()
    .filter(isCustomResourceDefinitionLike)
    .filter(d => d.group === group && d.names.kind === kind);
}
