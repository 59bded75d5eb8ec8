import { cell, code, codeCell, table } from './_markdown';
import { RbacRule } from '../operator/contract-rules';
import { RbacGrant } from '../operator/operator-rbac';

/** What the operator page shows; `Operator` provides all of it. */
export interface OperatorDiagramInput {
  /** Operator name (Deployment and ServiceAccount). */
  readonly name: string;
  /** Namespace the controller runs in. */
  readonly namespace: string;
  /** Watched namespaces. @default - cluster-wide */
  readonly watchNamespaces?: readonly string[];
  /** The custom kinds it reconciles, with their CRD names (`<plural>.<group>`). */
  readonly crds: readonly { readonly kind: string; readonly group: string; readonly plural: string }[];
  /** Every Role/ClusterRole it holds, with rules and reasons (`OperatorRbac.grants`). */
  readonly grants: readonly RbacGrant[];
}

/** How a contract clause reads as an edge: the reason prefix `contract-rules` writes, its label, and its direction. */
const RELATIONS: readonly { readonly pattern: RegExp; readonly label: string; readonly towardController: boolean }[] = [
  { pattern: /^watches (\S+)$/, label: 'watches', towardController: true },
  { pattern: /^owns (\S+)$/, label: 'owns', towardController: false },
  { pattern: /^reads (\S+)$/, label: 'reads', towardController: false },
  { pattern: /^writes (\S+) status$/, label: 'writes status', towardController: false },
  { pattern: /^writes (\S+)$/, label: 'writes', towardController: false },
  { pattern: /^adds and removes finalizers on (\S+)$/, label: 'finalizers', towardController: false },
];

interface KindNode {
  readonly id: string;
  readonly kind: string;
  readonly group: string;
  readonly resource: string;
  readonly custom: boolean;
}

/**
 * A Mermaid flowchart of one operator: the CRDs it reconciles → its controller → the kinds it owns,
 * reads or writes, and the RBAC it holds (one node per Role/ClusterRole, listing its rules).
 */
export function renderOperatorDiagram(input: OperatorDiagramInput): string {
  const kinds = new Map<string, KindNode>();
  const edges = new Map<string, { from: string; to: string; label: string; dashed: boolean }>();
  const customKeys = new Set(input.crds.map((c) => `${c.group}/${c.plural}`));
  for (const g of input.grants.filter((x) => !x.beyondContract)) {
    for (const r of g.rules) {
      const resource = r.resource.split('/')[0];
      for (const reason of r.reasons) {
        for (const rel of RELATIONS) {
          const m = rel.pattern.exec(reason);
          if (!m) continue;
          const key = `${r.apiGroup}/${resource}`;
          if (!kinds.has(key)) {
            kinds.set(key, {
              id: `k${kinds.size}`,
              kind: m[1],
              group: r.apiGroup,
              resource,
              custom: customKeys.has(key),
            });
          }
          const node = kinds.get(key)!;
          const [from, to] = rel.towardController ? [node.id, 'ctrl'] : ['ctrl', node.id];
          edges.set(`${from}|${to}|${rel.label}`, { from, to, label: rel.label, dashed: rel.label === 'reads' });
          break;
        }
      }
    }
  }

  const scope = input.watchNamespaces ? `watches ${input.watchNamespaces.join(', ')}` : 'watches all namespaces';
  const lines = ['flowchart LR'];
  lines.push(`  subgraph ns_op["namespace ${esc(input.namespace)}"]`);
  lines.push(`    ctrl["Deployment ${esc(input.name)}<br/>ServiceAccount ${esc(input.name)}<br/>${esc(scope)}"]`);
  lines.push('  end');
  for (const k of kinds.values()) {
    const label = `${esc(k.kind)}<br/>${esc(k.custom ? `${k.resource}.${k.group}` : k.group || 'core')}`;
    lines.push(k.custom ? `  ${k.id}[("${label}")]` : `  ${k.id}["${label}"]`);
  }
  for (const e of edges.values()) lines.push(`  ${e.from} ${e.dashed ? '-.->' : '-->'}|${esc(e.label)}| ${e.to}`);
  input.grants.forEach((g, i) => {
    const where = g.kind === 'Role' ? `Role ${g.namespace}/${g.name}` : `ClusterRole ${g.name}`;
    const rules = g.rules.map(
      (r) =>
        `${r.apiGroup || 'core'}/${r.resource}${r.resourceNames?.length ? `[${r.resourceNames.join(',')}]` : ''}: ${r.verbs.join(',')}`,
    );
    lines.push(
      `  rbac${i}{{"${esc(where)}${g.beyondContract ? ' (beyond the contract)' : ''}<br/>${rules.map(esc).join('<br/>')}"}}`,
    );
    lines.push(`  rbac${i} -. grants .-> ctrl`);
  });
  for (const k of kinds.values()) if (k.custom) lines.push(`  style ${k.id} fill:#e8f0fe,stroke:#1a73e8`);
  return lines.join('\n');
}

/** The operator page: the diagram, then the RBAC it holds as a table. @internal */
export function renderOperatorPage(
  input: OperatorDiagramInput,
  crdPages: Readonly<Record<string, string>> = {},
): string {
  const lines = [
    `# Operator ${input.name}`,
    '',
    `Runs in namespace ${code(input.namespace)}; ${input.watchNamespaces ? `watches ${input.watchNamespaces.map(code).join(', ')}` : 'watches all namespaces'}.`,
    '',
  ];
  if (input.crds.length > 0) {
    lines.push(
      'Reconciles:',
      '',
      ...input.crds.map((c) => {
        const name = `${c.plural}.${c.group}`;
        return crdPages[name] ? `- [${c.kind}](${crdPages[name]}) (${code(name)})` : `- ${c.kind} (${code(name)})`;
      }),
      '',
    );
  }
  lines.push('```mermaid', renderOperatorDiagram(input), '```', '', '## RBAC', '');
  for (const g of input.grants) {
    const where = g.kind === 'Role' ? `Role ${code(`${g.namespace}/${g.name}`)}` : `ClusterRole ${code(g.name)}`;
    lines.push(`### ${where} — ${g.purpose}${g.beyondContract ? ' (**beyond the contract**)' : ''}`, '');
    lines.push(
      ...table(
        ['API group', 'Resource', 'Verbs', 'Why'],
        g.rules.map((r: RbacRule) => [
          r.apiGroup ? codeCell(r.apiGroup) : '(core)',
          codeCell(r.resource + (r.resourceNames?.length ? ` [${r.resourceNames.join(', ')}]` : '')),
          r.verbs.join(', '),
          cell(r.reasons.join('; ')),
        ]),
      ),
      '',
    );
  }
  return lines.join('\n');
}

/** Mermaid label text: quotes and angle brackets as entities. */
function esc(text: string): string {
  return text.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
}
