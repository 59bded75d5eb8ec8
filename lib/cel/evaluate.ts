import { celEnv, CelEnv, CelInput, CelValue, isCelError, isCelList, isCelMap, parse, plan, run } from '@bufbuild/cel';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { escapePropertyName, isIntOrString } from './cel-types';
import { KUBERNETES_FUNCTIONS } from './runtime-functions';

let sharedEnv: CelEnv | undefined;
const programs = new Map<string, ReturnType<typeof plan>>();

function env(): CelEnv {
  sharedEnv ??= celEnv({ funcs: [...KUBERNETES_FUNCTIONS] });
  return sharedEnv;
}

/** The outcome of evaluating one expression: its value, or the evaluation error's message. */
export type EvalOutcome = { readonly ok: true; readonly value: CelValue } | { readonly ok: false; readonly error: string };

/**
 * Evaluates a CEL expression with `self` (and `oldSelf` when given) bound to JSON values converted
 * the way the apiserver exposes them to rules (see `toCelValue`). Programs are cached by source.
 */
export function evaluateExpression(
  source: string,
  schema: JSONSchemaProps,
  self: unknown,
  oldSelf?: unknown,
  isResourceRoot = false,
): EvalOutcome {
  let program = programs.get(source);
  try {
    if (!program) {
      program = plan(env(), parse(source));
      programs.set(source, program);
    }
    const bindings: Record<string, CelInput> = { self: toCelValue(self, schema, isResourceRoot) };
    if (oldSelf !== undefined) bindings.oldSelf = toCelValue(oldSelf, schema, isResourceRoot);
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
export function toCelValue(value: unknown, schema: JSONSchemaProps | undefined, isResourceRoot = false): CelInput {
  if (value === null || value === undefined) return null;
  if (schema && isIntOrString(schema)) return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : (value as CelInput);
  if (Array.isArray(value)) return value.map(v => toCelValue(v, schema?.items));
  switch (typeof value) {
    case 'boolean': return value;
    case 'number':
      if (schema?.type === 'integer' || (schema?.type !== 'number' && Number.isInteger(value))) return BigInt(value);
      return value;
    case 'string': return stringValue(value, schema);
    case 'object': return objectValue(value as Record<string, unknown>, schema, isResourceRoot);
    default: return null;
  }
}

function stringValue(value: string, schema: JSONSchemaProps | undefined): CelInput {
  switch (schema?.format) {
    case 'byte': return new Uint8Array(Buffer.from(value, 'base64'));
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

function objectValue(value: Record<string, unknown>, schema: JSONSchemaProps | undefined, isResourceRoot: boolean): CelInput {
  const out = new Map<string, CelInput>();
  const ap = schema?.additionalProperties;
  const embedded = isResourceRoot || schema?.['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(value)) {
    if (ap && typeof ap === 'object') {
      out.set(k, toCelValue(v, ap, ap['x-kubernetes-embedded-resource'] === true));
      continue;
    }
    const prop = schema?.properties?.[k];
    if (prop) {
      const name = escapePropertyName(k);
      if (name !== undefined) out.set(name, toCelValue(v, prop, prop['x-kubernetes-embedded-resource'] === true));
    } else if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) {
      out.set(k, toCelValue(v, undefined));
    } else {
      out.set(k, toCelValue(v, undefined));
    }
  }
  return out as unknown as CelInput;
}

/** A CEL result as text for messages: `"object"` for maps/objects, as the apiserver prints them. */
export function celValueText(v: CelValue): string {
  if (isCelMap(v)) return 'object';
  if (isCelList(v)) return 'list';
  return String(v);
}
