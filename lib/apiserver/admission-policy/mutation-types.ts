import { CelType, DYN, STRING } from '../cel/cel-types';
import { FunctionDecl } from '../cel/declarations';
import { StructDecl } from '../cel/type-checker';

type ObjectType = Extract<CelType, { kind: 'object' }>;

/**
 * The message types of a mutation's expression (`k8s.io/apiserver/pkg/admission/plugin/policy/mutating`):
 * `JSONPatch{op, path, from, value}`, and `Object` with its nested types named by their field path
 * (`Object.spec.template`; a list's or a map's by the field too: `Object.spec.containers{…}` is a container).
 * At create the apiserver does not know the matched kinds: every `Object…` type is open (any field, each dyn).
 * Given the matched kind's type (`object` of the type checker), the `Object…` types are that kind's.
 */
export function mutationStructs(object?: CelType): (messageName: string) => StructDecl | undefined {
  return (name) => {
    if (name === 'JSONPatch') return { type: JSON_PATCH, open: false, undeclaredField: 'untyped' };
    if (name !== 'Object' && !name.startsWith('Object.')) return undefined;
    if (!object || object.kind !== 'object') {
      return { type: { kind: 'object', name, fields: {} }, open: true, undeclaredField: 'undefined' };
    }
    let t: CelType | undefined = object;
    for (const field of name.split('.').slice(1)) {
      t = t?.kind === 'object' ? t.fields[field] : undefined;
      t = elementOf(t);
    }
    t = elementOf(t);
    if (!t || t.kind !== 'object') {
      return { type: { kind: 'object', name, fields: {} }, open: true, undeclaredField: 'undefined' };
    }
    return { type: { ...t, name } as ObjectType, open: false, undeclaredField: 'undefined' };
  };
}

/** A list's element or a map's value (the type a nested message name stands for), else the type itself. */
function elementOf(t: CelType | undefined): CelType | undefined {
  if (t?.kind === 'list') return t.elem;
  if (t?.kind === 'map') return t.value;
  return t;
}

export const JSON_PATCH: ObjectType = {
  kind: 'object',
  name: 'JSONPatch',
  fields: { op: STRING, path: STRING, from: STRING, value: DYN },
};

/** `jsonpatch.escapeKey(k)`: a key escaped for a JSON pointer (`~` → `~0`, `/` → `~1`). */
export const MUTATION_FUNCTIONS: readonly FunctionDecl[] = [
  { name: 'jsonpatch.escapeKey', args: [STRING], result: STRING },
];
