import { child, index, isObject } from '../../apimachinery/field';
import { CrdManifest } from '../crd-manifest';
import { checkDefaults } from './check-defaults';
import { checkCrdNames } from './crd-names';
import { checkCrdSize } from './crd-size';
import { checkCrdVersions } from './crd-versions';
import { checkPrinterColumns } from './printer-columns';
import { SchemaCheckMemo } from './schema-check-memo';
import { checkSelectableFields } from './selectable-fields';
import { checkSubresources } from './subresources';
import { errorsOf, Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * Every synth-time check of a CustomResourceDefinition manifest, in the apiserver's order of concern:
 * names, versions, then per version the structural schema, list/map types, defaults, CEL rules,
 * subresources and printer columns, and finally size. Errors and warnings (severity `warning`) together.
 * The manifest is first given the defaults the apiserver applies (singular, listKind).
 * `version`: the Kubernetes version whose CEL cost estimate applies; what a version lacks (fields, CEL libraries) is
 * `checkCrdForVersions`' concern.
 */
export function validateCrdManifest(
  manifest: CrdManifest,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  return validateCrdManifestWith(manifest, version, new SchemaCheckMemo());
}

/**
 * `validateCrdManifest` with the memo given to `checkCrdForVersions` for the same manifest, so that the checks both
 * need run once.
 *
 * @internal
 */
export function validateCrdManifestWith(
  manifest: CrdManifest,
  version: KubernetesVersion,
  memo: SchemaCheckMemo,
): Issue[] {
  // a body the apiserver cannot decode (or that strict field validation refuses) is answered with 400, unvalidated
  const { decoded, issues: decoding, ignored } = memo.decodedCrd(manifest, [version]);
  if (decoding.length > 0) return [...decoding];
  const crd = withApiserverDefaults(decoded);
  const issues: Issue[] = [...ignored];
  if (crd.apiVersion !== 'apiextensions.k8s.io/v1') {
    issues.push({
      path: 'apiVersion',
      message: 'Unsupported value: supported values: "apiextensions.k8s.io/v1"',
      value: crd.apiVersion,
    });
  }
  if (crd.kind !== 'CustomResourceDefinition') {
    issues.push({
      path: 'kind',
      message: 'Unsupported value: supported values: "CustomResourceDefinition"',
      value: crd.kind,
    });
  }
  issues.push(...checkCrdNames(crd));
  issues.push(...checkCrdVersions(crd));
  const versions: any[] = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  versions.forEach((v, i) => issues.push(...checkVersionSchema(v, index('spec.versions', i), version, memo)));
  issues.push(...checkCrdSize(manifest));
  return issues;
}

/**
 * Schema-level checks of one version (`basePath` is e.g. `spec.versions[0]`). A schema lifted from the first version
 * (shared-schema.ts) is the same object there: its issues are remembered, and the report names every version.
 */
function checkVersionSchema(
  version: any,
  basePath: string,
  kubernetesVersion: KubernetesVersion,
  memo: SchemaCheckMemo,
): Issue[] {
  if (!isObject(version)) return [];
  const schema: JSONSchemaProps | undefined =
    isObject(version.schema) && isObject(version.schema.openAPIV3Schema) ? version.schema.openAPIV3Schema : undefined;
  const issues: Issue[] = [];
  if (schema) {
    const schemaPath = child(basePath, 'schema', 'openAPIV3Schema');
    issues.push(...memo.structuralIssues(schema, schemaPath));
    // Like the apiserver: defaults and CEL rules are only checked against a valid structural schema,
    // otherwise their messages would be noise caused by the schema errors.
    if (errorsOf(issues).length === 0) {
      issues.push(...checkDefaults(schema, schemaPath));
      issues.push(...memo.celRuleIssues(schema, schemaPath, kubernetesVersion));
    }
  }
  issues.push(...checkSubresources(version.subresources, schema, basePath));
  issues.push(...checkPrinterColumns(version.additionalPrinterColumns, schema, basePath));
  issues.push(...checkSelectableFields(version.selectableFields, schema, basePath));
  return issues;
}

/** The defaults the apiserver fills in before validating (`SetDefaults_CustomResourceDefinitionSpec`). */
export function withApiserverDefaults(manifest: CrdManifest): CrdManifest {
  if (!isObject(manifest) || !isObject(manifest.spec) || !isObject(manifest.spec.names)) return manifest;
  const names = manifest.spec.names;
  const kind = typeof names.kind === 'string' ? names.kind : '';
  return {
    ...manifest,
    spec: {
      ...manifest.spec,
      names: {
        ...names,
        singular: names.singular || kind.toLowerCase(),
        listKind: names.listKind || (kind ? `${kind}List` : names.listKind),
      },
    },
  };
}
