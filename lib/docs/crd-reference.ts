import * as yaml from 'yaml';
import { cell, code, codeCell, table } from './_markdown';
import { FieldDoc, flattenSchema } from './_schema-fields';
import { KUBERNETES_VERSIONS } from '../apimachinery/kubernetes-versions';
import { CrdManifest, CrdVersionSpec } from '../apiserver/crd-manifest';
import { SchemaCheckMemo } from '../apiserver/crd-validation/schema-check-memo';
import { checkCrdForVersions } from '../apiserver/crd-validation/version-support';
import { ValidationRule } from '../apiserver/schema/json-schema-props';

/** Options of `renderCrdReference`. */
export interface CrdReferenceOptions {
  /**
   * Example objects of the CRD's kinds (e.g. the checked example resources of the app), shown as YAML
   * under their version.
   * @default - none
   */
  readonly examples?: readonly unknown[];
}

/**
 * The API reference of one CRD as a Markdown page: group, names, scope and versions; then per version
 * its subresources, printer columns, selectable fields, every field (type, required, default,
 * validation, enum, description) and every CEL rule with its message.
 *
 * Pass the manifest with descriptions kept (`CustomResourceDefinition.schemaFor()` keeps them even
 * when `stripDescriptions` drops them from the output), so the page documents what the cluster does not store.
 */
export function renderCrdReference(manifest: CrdManifest, options: CrdReferenceOptions = {}): string {
  const { group, names, scope } = manifest.spec;
  const versions = manifest.spec.versions ?? [];
  const storage = versions.find((v) => v.storage)?.name;
  const lines: string[] = [
    `# ${names.kind}`,
    '',
    `${code(`${group}/${storage ?? versions[0]?.name ?? '?'}`)} · ${scope} · CRD ${code(manifest.metadata.name)}`,
    '',
  ];
  const rootDescription = versions.map((v) => v.schema?.openAPIV3Schema?.description).find((d) => d);
  if (rootDescription) lines.push(rootDescription, '');
  lines.push(
    ...table(
      ['', ''],
      [
        ['Group', codeCell(group)],
        ['Kind', `${codeCell(names.kind)} (list: ${codeCell(names.listKind)})`],
        ['Plural / singular', `${codeCell(names.plural)} / ${codeCell(names.singular)}`],
        ['Short names', names.shortNames?.length ? names.shortNames.map(codeCell).join(', ') : '—'],
        ['Categories', names.categories?.length ? names.categories.map(codeCell).join(', ') : '—'],
        ['Scope', scope === 'Cluster' ? 'Cluster (no namespace)' : 'Namespaced'],
        ['Conversion', manifest.spec.conversion?.strategy ?? 'None'],
        ['Kubernetes', installsOn(manifest)],
      ],
    ),
    '',
  );

  lines.push(
    '## Versions',
    '',
    ...table(
      ['Version', 'Served', 'Storage', 'Deprecated'],
      versions.map((v) => [
        codeCell(v.name),
        yesNo(v.served),
        yesNo(v.storage),
        v.deprecated ? `yes${v.deprecationWarning ? `: ${cell(v.deprecationWarning)}` : ''}` : 'no',
      ]),
    ),
    '',
  );
  lines.push(
    'Read it on a cluster with',
    '',
    '```sh',
    `kubectl explain ${names.plural}.spec --api-version=${group}/${storage ?? versions[0]?.name} --recursive`,
    '```',
    '',
  );

  for (const v of versions) {
    const examples = (options.examples ?? []).filter(
      (e: any) => e?.apiVersion === `${group}/${v.name}` && e?.kind === names.kind,
    );
    lines.push(...renderVersion(group, v, examples));
  }
  return lines.join('\n');
}

/**
 * The versions the CRD installs on, by the synth check of each version (fields, CEL environment and cost): the
 * oldest from which every newer supported version accepts it, and why the one before does not.
 */
function installsOn(manifest: CrdManifest): string {
  const newest = KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1];
  const memo = new SchemaCheckMemo(); // each version's rules compiled once over the loop
  for (let i = 0; i < KUBERNETES_VERSIONS.length; i++) {
    if (checkCrdForVersions(manifest, KUBERNETES_VERSIONS.slice(i), memo).length > 0) continue;
    if (i === 0) return `${KUBERNETES_VERSIONS[0]} to ${newest} (every supported version)`;
    const why = checkCrdForVersions(manifest, [KUBERNETES_VERSIONS[i - 1]], memo)[0];
    return `${KUBERNETES_VERSIONS[i]} to ${newest} (${KUBERNETES_VERSIONS[i - 1]}: ${cell(`${why.path}: ${why.message}`.slice(0, 200))})`;
  }
  return `none of ${KUBERNETES_VERSIONS[0]} to ${newest}`;
}

function renderVersion(group: string, v: CrdVersionSpec, examples: readonly unknown[]): string[] {
  const lines = [`## ${group}/${v.name}`, ''];
  if (v.deprecated) lines.push(`> **Deprecated.** ${v.deprecationWarning ?? `${group}/${v.name} is deprecated.`}`, '');

  const sub = v.subresources ?? {};
  const subs: string[] = [];
  if (sub.status) {
    subs.push(
      '- `/status`: `status` is written through the status subresource only; updates of the main resource ignore it.',
    );
  }
  if (sub.scale) {
    subs.push(
      `- \`/scale\`: replicas from ${code(sub.scale.specReplicasPath)}, observed ${code(sub.scale.statusReplicasPath)}` +
        `${sub.scale.labelSelectorPath ? `, selector ${code(sub.scale.labelSelectorPath)}` : ''} (\`kubectl scale\`, HorizontalPodAutoscaler).`,
    );
  }
  lines.push('### Subresources', '', ...(subs.length > 0 ? subs : ['None.']), '');

  const columns = v.additionalPrinterColumns ?? [];
  if (columns.length > 0) {
    lines.push(
      '### Printer columns (`kubectl get`)',
      '',
      ...table(
        ['Column', 'Type', 'JSONPath', 'Shown', 'Description'],
        columns.map((c) => [
          cell(c.name),
          `${c.type}${c.format ? ` (${c.format})` : ''}`,
          codeCell(c.jsonPath),
          (c.priority ?? 0) === 0 ? 'always' : '`-o wide`',
          cell(c.description ?? ''),
        ]),
      ),
      '',
    );
  }
  if ((v.selectableFields ?? []).length > 0) {
    lines.push(
      '### Selectable fields',
      '',
      `Usable in \`kubectl get --field-selector\`: ${v.selectableFields!.map((f) => code(f.jsonPath)).join(', ')}.`,
      '',
    );
  }

  if (examples.length > 0) {
    lines.push(`### Example${examples.length > 1 ? 's' : ''}`, '', 'Checked against this schema at synth.', '');
    for (const e of examples) lines.push('```yaml', yaml.stringify(e, { lineWidth: 0 }).trimEnd(), '```', '');
  }

  const schema = v.schema?.openAPIV3Schema;
  if (!schema) return [...lines, 'No schema.', ''];
  const fields = flattenSchema(schema);
  lines.push(
    '### Fields',
    '',
    ...table(
      ['Field', 'Type', 'Required', 'Default', 'Validation', 'Description'],
      fields.filter((f) => f.path !== '.').map(fieldRow),
    ),
    '',
  );

  const rules = fields.flatMap((f) => f.rules.map((r) => ({ path: f.path, rule: r })));
  if (rules.length > 0) {
    lines.push(
      '### Validation rules (CEL)',
      '',
      'Checked by the apiserver; transition rules (using `oldSelf`) only on update.',
      '',
      ...table(
        ['Field', 'Rule', 'Message', 'Checked on', 'Reported at'],
        rules.map(({ path, rule }) => [
          codeCell(path),
          codeCell(rule.rule),
          messageOf(rule),
          /\boldSelf\b/.test(rule.rule) ? 'update' : 'create, update',
          reportedAt(path, rule),
        ]),
      ),
      '',
    );
  }
  return lines;
}

function fieldRow(f: FieldDoc): string[] {
  const validation = [...f.validation.map(cell)];
  if (f.enum) validation.unshift(`one of ${f.enum.map((e) => codeCell(JSON.stringify(e))).join(', ')}`);
  if (f.rules.length > 0) validation.push(`${f.rules.length} CEL rule${f.rules.length > 1 ? 's' : ''} (below)`);
  return [
    codeCell(f.path),
    codeCell(f.type),
    f.required ? 'yes' : '',
    f.default === undefined ? '' : codeCell(JSON.stringify(f.default)),
    validation.join('<br>'),
    cell(f.description ?? ''),
  ];
}

function messageOf(rule: ValidationRule): string {
  if (rule.messageExpression) return `${codeCell(rule.messageExpression)} (expression)`;
  return cell(rule.message ?? `failed rule: ${rule.rule}`);
}

function reportedAt(path: string, rule: ValidationRule): string {
  const where = rule.fieldPath ? `${path === '.' ? '' : path}${rule.fieldPath}` : path;
  return `${codeCell(where)}${rule.reason ? ` (${rule.reason})` : ''}`;
}

function yesNo(b: boolean | undefined): string {
  return b ? 'yes' : 'no';
}
