import { IConstruct } from 'constructs';
import { ICustomResourceDefinition, isCustomResourceDefinitionLike } from '../crd/icustom-resource-definition';

/** Every definition of `group`/`kind` in the construct tree of `scope`. @internal */
export function findDefinitions(scope: IConstruct, group: string, kind: string): ICustomResourceDefinition[] {
  return scope.node.root.node
    .findAll()
    .filter(isCustomResourceDefinitionLike)
    .filter((d) => d.group === group && d.names.kind === kind);
}
