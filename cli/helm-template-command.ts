/**
 * `cdk8s-operator helm-template <chart>`: `helm template` and `helm lint` for the charts `OutputLayout.HELM` writes,
 * without a `helm` binary. Values are the chart's values.yaml, then each `--values` file, then each `--set`
 * (`a.b=v`, `list={x,y}`), merged as Helm merges them (maps deep, everything else replaced), and checked against
 * values.schema.json as Helm checks them on install; then every template is rendered (the Go-template subset of
 * cli/helm/render-template.ts: anything else is an error) and every object must parse and have apiVersion, kind and
 * metadata.name. Prints the objects (`--include-crds`: crds/ first), or with `--lint` only the verdict.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import * as yaml from 'yaml';
import { renderTemplate } from './helm/render-template';

/** Options of {@link helmTemplateCommand}. */
export interface HelmTemplateOptions {
  readonly chart: string;
  /** `.Release.Namespace`. @default 'default' */
  readonly namespace?: string;
  /** `.Release.Name`. @default 'release' */
  readonly releaseName?: string;
  /** Values files, merged in order over values.yaml. @default [] */
  readonly valuesFiles?: readonly string[];
  /** `path=value` settings, applied last. @default [] */
  readonly set?: readonly string[];
  /** Only check (values against the schema, templates render and parse). @default false */
  readonly lint?: boolean;
  /** Print crds/ before the templates. @default false */
  readonly includeCrds?: boolean;
}

type Values = Record<string, unknown>;

/** Runs the command; returns the exit code (1 with every problem printed). */
export function helmTemplateCommand(options: HelmTemplateOptions, log: (line: string) => void): number {
  const problems: string[] = [];
  const dir = options.chart;
  const file = (f: string) => path.join(dir, f);
  if (!fs.existsSync(file('Chart.yaml'))) {
    throw new Error(`helm-template: ${dir} has no Chart.yaml (synth with layout: OutputLayout.HELM writes one)`);
  }
  const chart = yaml.parse(fs.readFileSync(file('Chart.yaml'), 'utf8')) ?? {};
  for (const key of ['apiVersion', 'name', 'version']) if (!chart[key]) problems.push(`Chart.yaml: ${key} is missing`);
  if (chart.apiVersion && chart.apiVersion !== 'v2') {
    problems.push(`Chart.yaml: apiVersion must be v2, got ${chart.apiVersion}`);
  }

  let values: Values = fs.existsSync(file('values.yaml'))
    ? (yaml.parse(fs.readFileSync(file('values.yaml'), 'utf8')) ?? {})
    : {};
  for (const f of options.valuesFiles ?? []) values = merge(values, yaml.parse(fs.readFileSync(f, 'utf8')) ?? {});
  for (const setting of options.set ?? []) {
    const eq = setting.indexOf('=');
    if (eq <= 0) {
      problems.push(`--set ${setting}: expected path=value`);
      continue;
    }
    values = merge(values, nested(setting.slice(0, eq).split('.'), parseSetValue(setting.slice(eq + 1))));
  }
  if (fs.existsSync(file('values.schema.json'))) {
    const validate = new Ajv({ allErrors: true, allowUnionTypes: true, strict: false }).compile(
      JSON.parse(fs.readFileSync(file('values.schema.json'), 'utf8')),
    );
    if (!validate(values)) {
      for (const e of validate.errors ?? []) {
        const at = e.instancePath.replace(/\//g, '.') || '(root)';
        const extra =
          e.params && 'additionalProperty' in e.params
            ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'`
            : '';
        problems.push(`values${at === '(root)' ? '' : at}: ${e.message}${extra}`);
      }
    }
  }

  const out: string[] = [];
  if (options.includeCrds && fs.existsSync(file('crds'))) {
    for (const f of fs.readdirSync(file('crds')).sort()) {
      out.push(`---\n# Source: ${chart.name}/crds/${f}\n${fs.readFileSync(path.join(file('crds'), f), 'utf8')}`);
    }
  }
  if (!problems.length) {
    const context = {
      namespace: options.namespace ?? 'default',
      releaseName: options.releaseName ?? 'release',
      chartName: chart.name,
    };
    for (const f of fs
      .readdirSync(file('templates'))
      .filter((n) => /\.ya?ml$/.test(n))
      .sort()) {
      let text: string;
      try {
        text = renderTemplate(fs.readFileSync(path.join(file('templates'), f), 'utf8'), values, context);
      } catch (e) {
        problems.push(`templates/${f}: ${(e as Error).message}`);
        continue;
      }
      yaml.parseAllDocuments(text).forEach((doc, i) => {
        if (doc.errors.length) {
          problems.push(`templates/${f} (document ${i + 1}): rendered YAML does not parse: ${doc.errors[0].message}`);
          return;
        }
        const o = doc.toJS();
        if (o === null || o === undefined) return;
        const missing = ['apiVersion', 'kind'].filter((k) => !o[k]).concat(o.metadata?.name ? [] : ['metadata.name']);
        if (missing.length) problems.push(`templates/${f} (document ${i + 1}): no ${missing.join(', ')}`);
        else out.push(`---\n# Source: ${chart.name}/templates/${f}\n${yaml.stringify(o)}`);
      });
    }
    const notes = file('templates/NOTES.txt');
    if (fs.existsSync(notes)) {
      try {
        renderTemplate(fs.readFileSync(notes, 'utf8'), values, context);
      } catch (e) {
        problems.push(`templates/NOTES.txt: ${(e as Error).message}`);
      }
    }
  }
  if (problems.length) {
    log(
      `Error: ${dir}: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    return 1;
  }
  if (options.lint) log(`==> Linting ${dir}\n1 chart(s) linted, 0 chart(s) failed`);
  else log(out.join('').trimEnd());
  return 0;
}

/** Helm's `--set` value: `{a,b}` a list, true/false/null, integers; anything else a string. */
function parseSetValue(v: string): unknown {
  if (/^\{.*\}$/.test(v)) return v.slice(1, -1).split(',').filter(Boolean).map(parseSetValue);
  if (v === 'true' || v === 'false') return v === 'true';
  if (v === 'null') return null;
  if (/^-?\d+$/.test(v)) return Number(v);
  return v;
}

function nested(keys: readonly string[], value: unknown): Values {
  return keys.reduceRight<unknown>((v, k) => ({ [k]: v }), value) as Values;
}

/** Helm's coalescing: maps merged key by key, anything else replaced; `null` deletes the key. */
function merge(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = merge(out[k] as Values, v);
    else out[k] = v;
  }
  return out;
}

function isMap(v: unknown): v is Values {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
