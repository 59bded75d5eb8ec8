import { Construct } from 'constructs';
import { CrdManifest, CrdNamesSpec, ICustomResourceDefinition, JSONSchemaProps, ResourceScope } from '../../lib';

/** Options of the CRD test double. */
export interface FakeCrdOptions {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope?: ResourceScope;
  readonly version?: string;
}

/**
 * A minimal ICustomResourceDefinition for tests (the real construct lives in lib/crd).
 * It renders no manifest into the chart; `toManifest()` returns a valid CRD.
 */
export class FakeCrd extends Construct implements ICustomResourceDefinition {
  public readonly group: string;
  public readonly names: CrdNamesSpec;
  public readonly scope: ResourceScope;
  public readonly storageVersion: string;

  constructor(scope: Construct, id: string, opts: FakeCrdOptions) {
    super(scope, id);
    this.group = opts.group;
    this.names = {
      kind: opts.kind,
      plural: opts.plural,
      singular: opts.kind.toLowerCase(),
      listKind: `${opts.kind}List`,
    };
    this.scope = opts.scope ?? ResourceScope.NAMESPACED;
    this.storageVersion = opts.version ?? 'v1alpha1';
  }

  public toManifest(): CrdManifest {
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${this.names.plural}.${this.group}` },
      spec: {
        group: this.group,
        names: this.names,
        scope: this.scope,
        versions: [
          {
            name: this.storageVersion,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: this.schemaFor() },
            subresources: { status: {} },
          },
        ],
      },
    };
  }

  public apiVersionFor(version?: string): string {
    return `${this.group}/${version ?? this.storageVersion}`;
  }

  public schemaFor(): JSONSchemaProps {
    return {
      type: 'object',
      properties: {
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    } as JSONSchemaProps;
  }
}
