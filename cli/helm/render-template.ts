/**
 * Renders the Go-template subset the Helm layout (lib/app/helm-layout.ts) writes, as `helm template` would, without a
 * `helm` binary (none in Debian's archive, no official npm package): `{{ .Values.a.b }}`, `.Release.Namespace`,
 * `.Release.Name`, `.Chart.Name`, `printf`, `join`, `quote`, `toYaml | nindent N`, `range $x := .Values.list` … `end`,
 * `if .Values.flag` … `end`, `{{ $x }}`, and the `{{-`/`-}}` whitespace trimming. Any other action throws, so a
 * template this subset does not cover is an error, never passed through unrendered.
 */
import * as yaml from 'yaml';

type Values = Record<string, any>;

/** What `.Release` and `.Chart` hold while rendering. */
export interface RenderContext {
  /** `.Release.Namespace`. @default 'default' */
  readonly namespace?: string;
  /** `.Release.Name`. @default 'release' */
  readonly releaseName?: string;
  /** `.Chart.Name`. @default 'chart' */
  readonly chartName?: string;
}

interface Scope {
  readonly values: Values;
  readonly vars: Record<string, unknown>;
  readonly context: RenderContext;
}

function lookup(path: string, scope: Scope): unknown {
  if (path.startsWith('$')) {
    if (!(path in scope.vars)) throw new Error(`helm-template: unknown variable ${path}`);
    return scope.vars[path];
  }
  if (path === '.Release.Namespace') return scope.context.namespace ?? 'default';
  if (path === '.Release.Name') return scope.context.releaseName ?? 'release';
  if (path === '.Chart.Name') return scope.context.chartName ?? 'chart';
  const m = /^\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(path);
  if (!m) throw new Error(`helm-template: unsupported reference ${path}`);
  return m[1]
    .split('.')
    .filter(Boolean)
    .reduce((v: any, k) => v?.[k], scope.values);
}

function evaluate(expr: string, scope: Scope): string {
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
    if (stage === 'quote') {
      value = JSON.stringify(String(value));
    } else if ((m = /^nindent (\d+)$/.exec(stage))) {
      value =
        '\n' +
        String(value)
          .split('\n')
          .map((l) => ' '.repeat(Number(m![1])) + l)
          .join('\n');
    } else {
      throw new Error(`helm-template: unsupported function ${stage}`);
    }
  }
  return String(value);
}

/** Renders one template file with `values`. */
export function renderTemplate(text: string, values: Values, context: RenderContext = {}): string {
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
      if (p.text !== undefined) {
        out += p.text;
        continue;
      }
      const action = p.action!;
      if (action === 'end') return { out, end: i };
      const cond = /^if (\S+)$/.exec(action);
      if (cond) {
        const body = render(i + 1, vars);
        const v = lookup(cond[1], { values, vars, context });
        // Go templates: false, 0, nil, and empty strings, lists and maps are false
        if (
          v &&
          !(Array.isArray(v) && v.length === 0) &&
          !(typeof v === 'object' && Object.keys(v as object).length === 0)
        ) {
          out += body.out;
        }
        i = body.end;
        continue;
      }
      const range = /^range (\$\w+) := (\S+)$/.exec(action);
      if (range) {
        const items = lookup(range[2], { values, vars, context }) as unknown[];
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
      out += evaluate(action, { values, vars, context });
    }
    return { out, end: parts.length };
  };
  return render(0, {}).out;
}

/** Every object of the rendered templates (YAML documents). */
export function renderObjects(templates: readonly string[], values: Values, context: RenderContext = {}): any[] {
  return templates
    .flatMap((t) =>
      yaml.parseAllDocuments(renderTemplate(t, values, context)).map((d) => {
        if (d.errors.length) {
          throw new Error(
            `helm-template: rendered YAML does not parse: ${d.errors[0].message}\n${renderTemplate(t, values, context)}`,
          );
        }
        return d.toJS();
      }),
    )
    .filter((o) => o && typeof o === 'object');
}
