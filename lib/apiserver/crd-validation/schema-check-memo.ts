import { decodeCrd, decodingKey } from './crd-decoding';
import { checkListAndMapTypes } from './list-map-types';
import { checkStructuralSchema } from './structural-schema';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { checkCelRules } from '../cel/check-rules';
import { CrdManifest } from '../crd-manifest';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * The schema checks that the checks of one CRD repeat, each computed once per schema (and Kubernetes version) while
 * the memo lives: `validateCrdManifest` and `checkCrdForVersions` both need the manifest decoded, the structural and
 * list/map checks and the rules compiled for the newest version, and the report's minimum version asks
 * `checkCrdForVersions` once per version of the range (each compiling the newest version's rules again). A caller
 * makes one memo for one manifest and drops it when done, so a schema changed afterwards is checked anew. The arrays
 * and decodings returned are shared: read them, never change them.
 *
 * @internal
 */
export class SchemaCheckMemo {
  private readonly structural = new Map<JSONSchemaProps, Map<string, readonly Issue[]>>();
  private readonly rules = new Map<JSONSchemaProps, Map<string, readonly Issue[]>>();
  private readonly decodings = new Map<CrdManifest, Map<string, ReturnType<typeof decodeCrd>>>();

  /** `decodeCrd`: as `versions` decode the manifest, or as the newest types do. */
  public decodedCrd(manifest: CrdManifest, versions?: readonly KubernetesVersion[]): ReturnType<typeof decodeCrd> {
    // versions that decode as the newest types share one decoding; the others' messages name them
    const key = versions?.length && decodingKey(versions[0]) !== '' ? versions.join(',') : '';
    let byKey = this.decodings.get(manifest);
    if (!byKey) this.decodings.set(manifest, (byKey = new Map()));
    let decoded = byKey.get(key);
    if (!decoded) byKey.set(key, (decoded = decodeCrd(manifest, key === '' ? undefined : versions)));
    return decoded;
  }

  /** `checkStructuralSchema` then `checkListAndMapTypes`. */
  public structuralIssues(schema: JSONSchemaProps, schemaPath: string): readonly Issue[] {
    return remember(this.structural, schema, schemaPath, () => [
      ...checkStructuralSchema(schema, schemaPath),
      ...checkListAndMapTypes(schema, schemaPath),
    ]);
  }

  /** `checkCelRules` for `version`. */
  public celRuleIssues(schema: JSONSchemaProps, schemaPath: string, version: KubernetesVersion): readonly Issue[] {
    return remember(this.rules, schema, `${version}\n${schemaPath}`, () => checkCelRules(schema, schemaPath, version));
  }
}

function remember(
  cache: Map<JSONSchemaProps, Map<string, readonly Issue[]>>,
  schema: JSONSchemaProps,
  key: string,
  compute: () => Issue[],
): readonly Issue[] {
  let bySchema = cache.get(schema);
  if (!bySchema) cache.set(schema, (bySchema = new Map()));
  let issues = bySchema.get(key);
  if (!issues) bySchema.set(key, (issues = compute()));
  return issues;
}
