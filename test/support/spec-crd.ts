import { CrdManifest } from '../../lib/apiserver/crd-manifest';

/** What {@link specCrd} builds a CRD from. */
export interface SpecCrdOptions {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  /** The schema of `spec` (the rest of the CRD is the smallest the apiserver accepts). */
  readonly spec: Record<string, unknown>;
}

/**
 * A namespaced, single-version (v1) CRD whose only field is `spec`: the fixture of tests that ask the
 * apiserver for its verdict on one schema or rule.
 */
export function specCrd(options: SpecCrdOptions): CrdManifest {
  const manifest = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${options.plural}.${options.group}` },
    spec: {
      group: options.group,
      scope: 'Namespaced',
      names: { kind: options.kind, plural: options.plural },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: options.spec } } },
        },
      ],
    },
  };
  return manifest as unknown as CrdManifest;
}
