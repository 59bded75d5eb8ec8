import { IConstruct } from 'constructs';
import { ICustomResourceDefinition, isCustomResourceDefinitionLike } from './icustom-resource-definition';
import { CrdNamesSpec } from '../apiserver/crd-manifest';

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
  const all = crdsOfApp(crd);
  const earlier = all.slice(0, all.indexOf(crd)).filter((other) => other.group === crd.group);
  const problems: string[] = [];
  const check = (field: string, name: string | undefined, usedBy: (names: CrdNamesSpec) => string[]) => {
    if (!name) return;
    const owner = earlier.find((other) => usedBy(other.names).includes(name));
    if (!owner) return;
    const replaces =
      field === 'plural' && owner.names.plural === name
        ? `both are ${name}.${crd.group}, so applying this one replaces the other`
        : 'the apiserver would not accept the names (NamesAccepted=False)';
    problems.push(
      `spec.names.${field}: Invalid value: ${JSON.stringify(name)}: is already in use in group ${crd.group} by [${(owner as IConstruct).node.path}]; ${replaces}`,
    );
  };
  check('plural', crd.names.plural, resourceNames);
  check('singular', crd.names.singular, resourceNames);
  (crd.names.shortNames ?? []).forEach((s, i) => check(`shortNames[${i}]`, s, resourceNames));
  check('kind', crd.names.kind, kindNames);
  check('listKind', crd.names.listKind, kindNames);
  return problems;
}

/**
 * The app's CRDs in tree order. Every CRD's check asks for them during one synth: the list is kept
 * until the synchronous synth ends (a microtask clears it), so an app walks its tree once, not once
 * per CRD. A CRD missing from the list was added since: the list is rebuilt.
 */
function crdsOfApp(crd: ICustomResourceDefinition): ICustomResourceDefinition[] {
  const root = crd.node.root;
  let all = CRDS_OF_ROOT.get(root);
  if (!all || !all.includes(crd)) {
    all = root.node.findAll().filter(isCustomResourceDefinitionLike);
    CRDS_OF_ROOT.set(root, all);
    queueMicrotask(() => CRDS_OF_ROOT.delete(root));
  }
  return all;
}

const CRDS_OF_ROOT = new WeakMap<IConstruct, ICustomResourceDefinition[]>();

function resourceNames(names: CrdNamesSpec): string[] {
  return [names.plural, names.singular, ...(names.shortNames ?? [])].filter((n) => !!n);
}

function kindNames(names: CrdNamesSpec): string[] {
  return [names.kind, names.listKind].filter((n) => !!n);
}
