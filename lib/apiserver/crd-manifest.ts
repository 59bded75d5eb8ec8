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
  readonly metadata: {
    readonly name: string;
    readonly annotations?: Record<string, string>;
    readonly labels?: Record<string, string>;
    readonly [k: string]: unknown;
  };
  readonly spec: CrdSpec;
  readonly status?: { readonly storedVersions?: readonly string[]; readonly [k: string]: unknown };
}
