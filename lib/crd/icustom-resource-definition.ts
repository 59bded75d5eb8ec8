import { IConstruct } from 'constructs';
import { CrdManifest, CrdNamesSpec, ResourceScope } from '../apiserver/crd-manifest';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

/**
 * What other constructs (example resources, RBAC, the operator, docs) need to know about a CRD.
 * Implemented by `CustomResourceDefinition` for both built and raw (imported) definitions.
 */
export interface ICustomResourceDefinition extends IConstruct {
  /** API group, e.g. `database.example.com`. */
  readonly group: string;
  /** `spec.names` with every default filled in (plural, singular, listKind). */
  readonly names: CrdNamesSpec;
  readonly scope: ResourceScope;
  /** Name of the version marked `storage: true`. */
  readonly storageVersion: string;
  /** The full manifest as it will be written (after defaults and any description stripping). */
  toManifest(): CrdManifest;
  /** `<group>/<version>`, for the storage version when none is given. */
  apiVersionFor(version?: string): string;
  /** The openAPIV3Schema of a version (storage version when none is given). */
  schemaFor(version?: string): JSONSchemaProps;
}

/**
 * Whether a value implements `ICustomResourceDefinition` (duck-typed, so it matches the
 * `CustomResourceDefinition` construct, imported definitions and test doubles alike).
 *
 * @internal
 */
export function isCustomResourceDefinitionLike(c: unknown): c is ICustomResourceDefinition {
  const x = c as Partial<ICustomResourceDefinition> | undefined;
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.group === 'string' &&
    typeof x.names === 'object' &&
    x.names !== null &&
    typeof x.names.kind === 'string' &&
    typeof x.toManifest === 'function' &&
    typeof x.schemaFor === 'function' &&
    typeof x.apiVersionFor === 'function'
  );
}
