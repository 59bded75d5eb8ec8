import { IConstruct } from 'constructs';
import { CrdNamesSpec } from '../apiserver/crd-manifest';
import { ICustomResourceDefinition, isCustomResourceDefinitionLike } from './icustom-resource-definition';

/**
 * Names of `crd` that an earlier CRD of the same app already uses in the same group, as the apiserver's
 * naming controller compares them: plural, singular and short names against the other CRDs' resource
 * names, kind and listKind against their kinds. The apiserver would not accept such names
 * (NamesAccepted=False, "… is already in use"); two CRDs with the same plural are even the same object
 * (`<plural>.<group>`), so applying the second replaces the first. Reported on the later CRD only, once.
 *
 * @internal
 */
export function nameConflicts(crd: ICustomResourceDefinition): string[] {
  const all = crd.node.root.node.findAll().filter(isCustomResourceDefinitionLike);
  const earlier = all.slice(0, all.indexOf(crd)).filter(other => other.group === crd.group);
  const problems: string[] = [];
  const check = (field: string, name: string | undefined, usedBy: (names: CrdNamesSpec) => string[]) => {
    if (!name) return;
    const owner = earlier.find(other => usedBy(other.names).includes(name));
    if (!owner) return;
    const replaces = field === 'plural' && owner.names.plural === name
      ? `both are ${name}.${crd.group}, so applying this one replaces the other`
      : 'the apiserver would not accept the names (NamesAccepted=False)';
    problems.push(`spec.names.${field}: Invalid value: ${JSON.stringify(name)}: is already in use in group ${crd.group} by [${(owner as IConstruct).node.path}]; ${replaces}`);
  };
  check('plural', crd.names.plural, resourceNames);
  check('singular', crd.names.singular, resourceNames);
  (crd.names.shortNames ?? []).forEach((s, i) => check(`shortNames[${i}]`, s, resourceNames));
  check('kind', crd.names.kind, kindNames);
  check('listKind', crd.names.listKind, kindNames);
  return problems;
}

function resourceNames(names: CrdNamesSpec): string[] {
  return [names.plural, names.singular, ...(names.shortNames ?? [])].filter(n => !!n);
}

function kindNames(names: CrdNamesSpec): string[] {
  return [names.kind, names.listKind].filter(n => !!n);
}
