/**
 * Renders the Go-template subset the Helm layout writes, as `helm template` would, for tests on a machine without a
 * `helm` binary (none in Debian's archive, no official npm package): `{{ .Values.a.b }}`, `printf`, `join`,
 * `quote`, `toYaml | nindent N`, `range $x := .Values.list` … `end`, `{{ $x }}`, and the `{{-`/`-}}` whitespace
 * trimming. Any other action throws, so a template this subset does not cover fails the test instead of passing
 * through unrendered.
 *
 * Also Helm's install order (pkg/releaseutil/kind_sorter.go, InstallOrder): the order `helm install` creates kinds in.
 */
import * as yaml from 'yaml';

type Values = Record<string, any>;

const HELM_INSTALL_ORDER = [
  'PriorityClass', 'Namespace', 'NetworkPolicy', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'PodDisruptionBudget',
  'ServiceAccount', 'Secret', 'SecretList', 'ConfigMap', 'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim',
  'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleList', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'Role',
  'RoleList', 'RoleBinding', 'RoleBindingList', 'Service', 'DaemonSet', 'Pod', 'ReplicationController', 'ReplicaSet',
  'Deployment', 'HorizontalPodAutoscaler', 'StatefulSet', 'Job', 'CronJob', 'IngressClass', 'Ingress', 'APIService',
];

/** Objects sorted as `helm install` creates them: by kind in InstallOrder, unknown kinds (custom resources) last; stable. */
export function helmInstallOrder<T extends { kind: string }>(objects: readonly T[]): T[] {
  const rank = (k: string) => { const i = HELM_INSTALL_ORDER.indexOf(k); return i < 0 ? HELM_INSTALL_ORDER.length : i; };
  return objects.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o.kind) - rank(b.o.kind) || a.i - b.i).map(({ o }) => o);
}

function lookup(path: string, scope: { values: Values; vars: Record<string, unknown> }): unknown {
  if (path.startsWith('$')) {
    if (!(path in scope.vars)) throw new Error(`helm-template: unknown variable ${path}`);
    return scope.vars[path];
  }
  const m = /^\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(path);
  if (!m) throw new Error(`helm-template: unsupported reference ${path}`);
  return m[1].split('.').filter(Boolean).reduce((v: any, k) => v?.[k], scope.values);
}

function evaluate(expr: string, scope: { values: Values; vars: Record<string, unknown> }): string {
  const stages = expr.split('|').map((s) => s.trim());
  let value: unknown;
  const first = stages[0];
  let m: RegExpExecArray | null;
  if ((m = /^printf "([^"]*)" (.+)$/.exec(first))) {
    const args = m[2].split(/\s+/).map((a) => String(lookup(a, scope)));
    let i = 0;
    value = m[1].replace(/%s/g, () => args[i++]);
  } else if ((m = /^join "([^"]*)" (\S+)$/.exec(first))) {
    value = (lookup(m[2], scope) as unknown[]).join(m[1]);
  } else if ((m = /^toYaml (\S+)$/.exec(first))) {
    value = yaml.stringify(lookup(m[1], scope)).trimEnd();
  } else if (/^[.$][\w.$]*$/.test(first)) {
    value = lookup(first, scope);
  } else {
    throw new Error(`helm-template: unsupported action {{ ${expr} }}`);
  }
  for (const stage of stages.slice(1)) {
    if (stage === 'quote') value = JSON.stringify(String(value));
    else if ((m = /^nindent (\d+)$/.exec(stage))) value = '\n' + String(value).split('\n').map((l) => ' '.repeat(Number(m![1])) + l).join('\n');
    else throw new Error(`helm-template: unsupported function ${stage}`);
  }
  return String(value);
}

/** Renders one template file with `values`. */
export function renderTemplate(text: string, values: Values): string {
  // tokens: text and actions, with Helm's trimming applied to the neighbouring text
  const parts: { text?: string; action?: string }[] = [];
  const re = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;
  let last = 0;
  let m: RegExpExecArray | null;
  let trimNext = false;
  while ((m = re.exec(text))) {
    let before = text.slice(last, m.index);
    if (trimNext) before = before.replace(/^\s+/, '');
    if (m[1] === '-') before = before.replace(/\s+$/, '');
    parts.push({ text: before }, { action: m[2] });
    trimNext = m[3] === '-';
    last = re.lastIndex;
  }
  parts.push({ text: trimNext ? text.slice(last).replace(/^\s+/, '') : text.slice(last) });

  const render = (from: number, vars: Record<string, unknown>): { out: string; end: number } => {
    let out = '';
    for (let i = from; i < parts.length; i++) {
      const p = parts[i];
      if (p.text !== undefined) { out += p.text; continue; }
      const action = p.action!;
      if (action === 'end') return { out, end: i };
      const range = /^range (\$\w+) := (\S+)$/.exec(action);
      if (range) {
        const items = lookup(range[2], { values, vars }) as unknown[];
        let end = -1;
        for (const item of items) {
          const body = render(i + 1, { ...vars, [range[1]]: item });
          out += body.out;
          end = body.end;
        }
        if (end < 0) end = render(i + 1, { ...vars, [range[1]]: '' }).end; // an empty range still skips its body
        i = end;
        continue;
      }
      out += evaluate(action, { values, vars });
    }
    return { out, end: parts.length };
  };
  return render(0, {}).out;
}

/** Every object of the rendered templates (YAML documents). */
export function renderObjects(templates: readonly string[], values: Values): any[] {
  return templates.flatMap((t) => yaml.parseAllDocuments(renderTemplate(t, values)).map((d) => {
    if (d.errors.length) throw new Error(`helm-template: rendered YAML does not parse: ${d.errors[0].message}\n${renderTemplate(t, values)}`);
    return d.toJS();
  })).filter((o) => o && typeof o === 'object');
}
