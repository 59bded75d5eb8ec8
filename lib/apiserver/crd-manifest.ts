import { IConstruct } from 'constructs';
import { JSONSchemaProps } from './schema/json-schema-props';

/** `Namespaced` or `Cluster`. */
export enum ResourceScope {
  NAMESPACED = 'Namespaced',
  CLUSTER = 'Cluster',
}

/** `spec.names` of a CustomResourceDefinition, as the API spells it. */
export interface CrdNamesSpec {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly listKind: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

/** One `additionalPrinterColumns` entry, as the API spells it. */
export interface PrinterColumnSpec {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
}

/** `subresources.scale`, as the API spells it. */
export interface ScaleSubresourceSpec {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

/** `subresources`, as the API spells it. */
export interface SubresourcesSpec {
  readonly status?: {};
  readonly scale?: ScaleSubresourceSpec;
}

/** One entry of `spec.versions`, as the API spells it. */
export interface CrdVersionSpec {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated?: boolean;
  readonly deprecationWarning?: string;
  readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
  readonly subresources?: SubresourcesSpec;
  readonly additionalPrinterColumns?: readonly PrinterColumnSpec[];
  readonly selectableFields?: readonly { readonly jsonPath: string }[];
}

/** `spec` of an apiextensions.k8s.io/v1 CustomResourceDefinition. */
export interface CrdSpec {
  readonly group: string;
  readonly names: CrdNamesSpec;
  readonly scope: ResourceScope | string;
  readonly versions: readonly CrdVersionSpec[];
  readonly preserveUnknownFields?: boolean;
  readonly conversion?: { readonly strategy: string; readonly webhook?: unknown };
}

/** A whole CustomResourceDefinition manifest. */
export interface CrdManifest {
  readonly apiVersion: 'apiextensions.k8s.io/v1' | string;
  readonly kind: 'CustomResourceDefinition' | string;
  readonly metadata: { readonly name: string; readonly annotations?: Record<string, string>; readonly labels?: Record<string, string>; readonly [k: string]: unknown };
  readonly spec: CrdSpec;
  readonly status?: { readonly storedVersions?: readonly string[]; readonly [k: string]: unknown };
}

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
