import { ControlPlane } from '../envtest';

/**
 * The real apiserver as the oracle of string checks: one CRD with a list field per case (`items` is the case's
 * schema), one dry-run create per case with all its values, and the indices the apiserver refuses read from the
 * causes (`spec.<field>[i]`). Suites compare them with our verdicts value by value.
 */
export interface OracleCase {
  /** Field name (lower-case letters and digits). */
  readonly field: string;
  /** The items' schema. */
  readonly items: object;
}

export async function installOracleCrd(
  plane: ControlPlane,
  group: string,
  cases: readonly OracleCase[],
): Promise<void> {
  const properties: Record<string, object> = {};
  for (const c of cases) properties[c.field] = { type: 'array', items: c.items };
  await plane.installCrds([
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `oracles.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind: 'Oracle', plural: 'oracles' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
          },
        ],
      },
    },
  ]);
}

/** Whether the apiserver refuses each value (true = refused), in order. Fails on any other outcome. */
export async function apiserverRefuses(
  plane: ControlPlane,
  group: string,
  field: string,
  values: readonly unknown[],
): Promise<boolean[]> {
  const r = await plane.request('POST', `/apis/${group}/v1/namespaces/default/oracles?dryRun=All`, {
    apiVersion: `${group}/v1`,
    kind: 'Oracle',
    metadata: { name: 'x' },
    spec: { [field]: values },
  });
  if (r.code !== 201 && r.code !== 422) throw new Error(`unexpected reply ${r.code}: ${JSON.stringify(r.body)}`);
  const refused = new Set<number>();
  const at = new RegExp(`^spec\\.${field}\\[(\\d+)\\]$`);
  for (const cause of r.body?.details?.causes ?? []) {
    const m = at.exec(cause.field ?? '');
    if (m) refused.add(Number(m[1]));
    else throw new Error(`a cause outside the values: ${JSON.stringify(cause)}`);
  }
  if (r.code === 422 && refused.size === 0) {
    throw new Error(`refused without a cause on a value: ${JSON.stringify(r.body)}`);
  }
  return values.map((_, i) => refused.has(i));
}

/** Characters where Go's and JavaScript's regular expressions, parsers and Unicode handling part ways. */
export const EDGE_CHARACTERS = [
  '\n',
  '\r',
  '\t',
  '\v',
  '\f',
  ' ',
  '\u00a0',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u212a',
  '\u017f',
  'é',
  'É',
  '\u{1F600}',
  '\u0660',
  '\u00b5',
  '_',
  '-',
  '.',
  '/',
  ':',
  '@',
  '%',
  '+',
  '*',
  '\\',
  '"',
  '<',
  '>',
  '[',
  ']',
  '(',
  ')',
  ',',
  ';',
  '#',
  '?',
  'A',
  'z',
  '0',
  '9',
  '\u0000',
];
