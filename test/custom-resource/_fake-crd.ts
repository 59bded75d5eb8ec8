import * as fs from 'fs';
import { Construct } from 'constructs';
import { parse } from 'yaml';
import { CrdManifest, CrdNamesSpec, ResourceScope } from '../../lib/apiserver/crd-manifest';
import { JSONSchemaProps } from '../../lib/apiserver/schema/json-schema-props';
import { ICustomResourceDefinition } from '../../lib/crd/icustom-resource-definition';

/** A minimal ICustomResourceDefinition test double built from a raw manifest. */
export class FakeCrd extends Construct implements ICustomResourceDefinition {
  public static fromFile(scope: Construct, id: string, file: string, patch: (m: any) => void = () => {}): FakeCrd {
    const manifest = parse(fs.readFileSync(file, 'utf8'));
    patch(manifest);
    return new FakeCrd(scope, id, manifest);
  }

  public readonly group: string;
  public readonly names: CrdNamesSpec;
  public readonly scope: ResourceScope;

  constructor(
    scope: Construct,
    id: string,
    private readonly manifest: CrdManifest,
  ) {
    super(scope, id);
    this.group = manifest.spec.group;
    const n = manifest.spec.names;
    this.names = { ...n, singular: n.singular ?? n.kind.toLowerCase(), listKind: n.listKind ?? `${n.kind}List` };
    this.scope = manifest.spec.scope as ResourceScope;
  }

  public get storageVersion(): string {
    return this.manifest.spec.versions.find((v) => v.storage)!.name;
  }

  public toManifest(): CrdManifest {
    return this.manifest;
  }

  public apiVersionFor(version?: string): string {
    return `${this.group}/${version ?? this.storageVersion}`;
  }

  public schemaFor(version?: string): JSONSchemaProps {
    return this.manifest.spec.versions.find((v) => v.name === (version ?? this.storageVersion))!.schema!
      .openAPIV3Schema!;
  }
}
