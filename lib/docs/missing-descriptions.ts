import { IConstruct } from 'constructs';
import { flattenSchema } from './_schema-fields';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';
import { findCustomResourceDefinitions } from '../crd/custom-resource-definition';
import { Warnings } from '../synth-metadata/warnings';

/**
 * Field paths of a schema whose node has no `description` — `kubectl explain` shows an empty
 * DESCRIPTION for them. Standard root fields (apiVersion, kind, metadata) and list/map element
 * schemas (documented by their field) are not counted.
 *
 * @internal
 */
export function fieldsWithoutDescription(schema: JSONSchemaProps): string[] {
  return flattenSchema(schema)
    .filter((f) => f.path !== '.' && !f.path.endsWith('[*]') && !f.description?.trim())
    .map((f) => f.path);
}

/**
 * Warns, once per CRD version, about schema fields without a description in CRDs built from props
 * (imported manifests are someone else's to fix). Run by `OperatorApp` unless `descriptionCheck: false`.
 *
 * @internal
 */
export function warnAboutMissingDescriptions(root: IConstruct): void {
  for (const crd of findCustomResourceDefinitions(root).filter((c) => !c.imported)) {
    for (const v of crd.toManifest().spec.versions ?? []) {
      const missing = fieldsWithoutDescription(crd.schemaFor(v.name));
      if (missing.length === 0) continue;
      Warnings.of(crd).add(
        `docs: ${v.name}: ${missing.length} schema field${missing.length > 1 ? 's have' : ' has'} no description ` +
          `(kubectl explain and the API reference show nothing for ${missing.length > 1 ? 'them' : 'it'}): ${missing.join(', ')}`,
      );
    }
  }
}
