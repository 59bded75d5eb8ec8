import { celEnv, CelEnv, celError, CelInput, CelValue, isCelError, plan, run } from '@bufbuild/cel';
import { parseRule } from './ast';
import { CelRuntime, celRuntimeKey } from './cel-runtime';
import { escapePropertyName, isIntOrString } from './cel-types';
import { kubernetesFunctions, optionalValue } from './kubernetes-library';
import { rewriteOptionalSyntax } from './optional-syntax';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { JSONSchemaProps } from '../schema/json-schema-props';

const envs = new Map<string, CelEnv>();
const programs = new Map<string, ReturnType<typeof plan>>();

/**
 * How the CEL libraries of `version` evaluate (the changes of `APISERVER_CHANGES` they read: listed in
 * CUSTOM_RESOURCE_CHANGES, as the rules they run decide custom resources).
 */
export function celRuntimeOf(version: KubernetesVersion): CelRuntime {
  return {
    version,
    spacedScientific: !since(version, 'scientificWithoutSpaces'),
    strictUrlHosts: since(version, 'strictBracketedHosts'),
    offsetPastEndNotFound: since(version, 'stringOffsetPastEndNotFound'),
    lastIndexOfShorterNotFound: since(version, 'lastIndexOfShorterNotFound'),
  };
}

const runtimes = new Map<KubernetesVersion, { readonly runtime: CelRuntime; readonly key: string }>();

/** The runtime of `version` and its cache key, computed once per version (evaluation is on synth's hot path). */
function runtimeFor(version: KubernetesVersion): { readonly runtime: CelRuntime; readonly key: string } {
  let r = runtimes.get(version);
  if (!r) {
    const runtime = celRuntimeOf(version);
    runtimes.set(version, (r = { runtime, key: celRuntimeKey(runtime) }));
  }
  return r;
}

function env(key: string, runtime: CelRuntime): CelEnv {
  let e = envs.get(key);
  if (!e) {
    e = celEnv({ funcs: kubernetesFunctions(runtime) });
    envs.set(key, e);
  }
  return e;
}

/** The outcome of evaluating one expression: its value, or the evaluation error's message. */
export type EvalOutcome =
  { readonly ok: true; readonly value: CelValue } | { readonly ok: false; readonly error: string };

/**
 * Evaluates a CEL expression with `self` (and `oldSelf` when given) bound to JSON values converted
 * the way the apiserver exposes them to rules (see `toCelValue`), with the CEL libraries of `options.version`
 * (default: DEFAULT_KUBERNETES_VERSION). Programs are cached by source and runtime.
 */
export function evaluateExpression(
  source: string,
  schema: JSONSchemaProps,
  self: unknown,
  oldSelf?: unknown,
  options: { readonly optionalOldSelf?: boolean; readonly version?: KubernetesVersion } = {},
): EvalOutcome {
  const { runtime, key } = runtimeFor(options.version ?? DEFAULT_KUBERNETES_VERSION);
  let program = programs.get(`${key}\n${source}`);
  try {
    if (!program) {
      program = plan(env(key, runtime), parseRule(rewriteOptionalSyntax(source), { twoVariable: true }).parsed);
      programs.set(`${key}\n${source}`, program);
    }
    const bindings: Record<string, CelInput> = { self: toCelValue(self, schema) };
    if (options.optionalOldSelf) {
      // `optionalOldSelf: true`: oldSelf is an optional, none on create
      bindings.oldSelf = optionalValue(
        oldSelf === undefined || oldSelf === null ? undefined : toCelValue(oldSelf, schema),
      );
    } else if (oldSelf !== undefined) {
      bindings.oldSelf = toCelValue(oldSelf, schema);
    }
    const result = program(bindings as never);
    if (isCelError(result)) return { ok: false, error: result.message };
    return { ok: true, value: result };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/**
 * A JSON value as rules see it: integers as int (bigint), `number` as double, `format: byte` as
 * bytes, `date`/`date-time` as timestamp, `duration` as duration, property names escaped
 * (`x-y` → `x__dash__y`), int-or-string as int or string, untyped data as int when integral.
 */
export function toCelValue(value: unknown, schema: JSONSchemaProps | undefined): CelInput {
  if (value === null || value === undefined) return null;
  if (schema && isIntOrString(schema)) {
    return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : (value as CelInput);
  }
  if (Array.isArray(value)) return value.map((v) => toCelValue(v, schema?.items));
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      if (schema?.type === 'integer' || (schema?.type !== 'number' && Number.isInteger(value))) return BigInt(value);
      return value;
    case 'string':
      return stringValue(value, schema);
    case 'object':
      return objectValue(value as Record<string, unknown>, schema);
    default:
      return null;
  }
}

function stringValue(value: string, schema: JSONSchemaProps | undefined): CelInput {
  switch (schema?.format) {
    case 'byte': {
      // the apiserver decodes with go-openapi's strfmt.Base64, the URL alphabet: a value the standard alphabet's format
      // check accepted is an error for rules once it holds '+' or '/' (reading it fails the rule)
      const bad = value.search(/[+/]/);
      if (bad >= 0) {
        return celError(
          `Invalid byte formatted string ${value}: illegal base64 data at input byte ${bad}`,
        ) as unknown as CelInput;
      }
      return new Uint8Array(Buffer.from(value, 'base64'));
    }
    case 'date':
    case 'date-time':
    case 'duration': {
      const fn = schema.format === 'duration' ? 'duration' : 'timestamp';
      const text = schema.format === 'date' ? `${value}T00:00:00Z` : value;
      const converted = run(`${fn}(s)`, { s: text });
      return isCelError(converted) ? value : (converted as CelInput);
    }
  }
  return value;
}

/**
 * Map values keep their keys; declared properties get their CEL (escaped) names; undeclared keys
 * (apiVersion/kind/metadata of embedded resources, preserved unknown fields) are converted untyped.
 */
function objectValue(value: Record<string, unknown>, schema: JSONSchemaProps | undefined): CelInput {
  const out = new Map<string, CelInput>();
  const ap = schema?.additionalProperties;
  for (const [k, v] of Object.entries(value)) {
    if (ap && typeof ap === 'object') {
      out.set(k, toCelValue(v, ap));
      continue;
    }
    const prop = schema?.properties?.[k];
    if (!prop) {
      out.set(k, toCelValue(v, undefined));
      continue;
    }
    const name = escapePropertyName(k);
    if (name !== undefined) out.set(name, toCelValue(v, prop));
  }
  return out as unknown as CelInput;
}
