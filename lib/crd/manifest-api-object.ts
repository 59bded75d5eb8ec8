import { ApiObject, JsonPatch } from 'cdk8s';
import { Construct } from 'constructs';

/**
 * An ApiObject rendered as a given manifest, exactly: cdk8s would drop its nulls and empty metadata maps, so the whole
 * object is replaced by a JSON patch. Rendering does not go through that patch unless someone adds patches of their
 * own: cdk8s deep-copies the document and every patch value on each render, which for the largest imported CRDs (over
 * 1 MB of YAML, hundreds of thousands of nodes) was the most expensive part of synth. The manifest is plain JSON data
 * (parsed from YAML or copied through JSON) and frozen by its owner, so it is handed out as it is.
 * @internal
 */
export class ManifestApiObject extends ApiObject {
  private readonly manifest: Readonly<Record<string, unknown>>;
  private patchedByUser = false;

  constructor(
    scope: Construct,
    id: string,
    manifest: Readonly<Record<string, unknown>>,
    defaults: { apiVersion: string; kind: string; name: string },
  ) {
    const metadata = manifest.metadata as { name?: string } | undefined;
    super(scope, id, {
      apiVersion: (manifest.apiVersion as string | undefined) ?? defaults.apiVersion,
      kind: (manifest.kind as string | undefined) ?? defaults.kind,
      metadata: { name: metadata?.name ?? defaults.name },
    });
    this.manifest = manifest;
    super.addJsonPatch(JsonPatch.replace('', manifest));
  }

  public addJsonPatch(...ops: JsonPatch[]): void {
    this.patchedByUser = true;
    super.addJsonPatch(...ops);
  }

  public toJson(): any {
    if (this.patchedByUser) return super.toJson();
    // what ApiObject.toJson makes of the replaced document: apiVersion, kind and metadata first, then the rest
    const result: Record<string, unknown> = {};
    for (const k of ['apiVersion', 'kind', 'metadata', ...Object.keys(this.manifest)]) {
      if (k in this.manifest) result[k] = this.manifest[k];
    }
    return result;
  }
}
