import {
  celEnv,
  CelEnv,
  celFunc,
  CelInput,
  CelScalar,
  CelValue,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  plan,
} from '@bufbuild/cel';
import { KubernetesVersion } from '../../../apimachinery/kubernetes-versions';
import { AstExpr, parseRule } from '../../cel/ast';
import { celRuntimeOf } from '../../cel/evaluate';
import { kubernetesFunctions } from '../../cel/kubernetes-library';
import { rewriteOptionalSyntax } from '../../cel/optional-syntax';

/** The outcome of one admission expression: its value as JSON, or the evaluation error. */
export type AdmissionOutcome =
  | {
      readonly ok: true;
      readonly value: unknown;
      /**
       * Fields of the expression's `Object{…}` initializers (`.spec.extra.b`) that the apiserver cannot convert to
       * JSON: a map or list literal directly inside a map or list literal that is a field's value (its conversion
       * converts one level of literals: `convertField` in k8s.io/apiserver/pkg/cel/mutation/dynamic/objects.go).
       */
      readonly unconverted: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

const envs = new Map<KubernetesVersion, CelEnv>();
const programs = new Map<string, { readonly program: ReturnType<typeof plan>; readonly unconverted: string[] }>();

/** `jsonpatch.escapeKey` (k8s.io/apiserver/pkg/cel/library/jsonpatch.go): `~` → `~0`, then `/` → `~1`. */
const ESCAPE_KEY = celFunc('jsonpatch.escapeKey', [CelScalar.STRING], CelScalar.STRING, (k: string) =>
  k.replace(/~/g, '~0').replace(/\//g, '~1'),
);

function env(version: KubernetesVersion): CelEnv {
  let e = envs.get(version);
  if (!e) {
    e = celEnv({ funcs: [...kubernetesFunctions(celRuntimeOf(version)), ESCAPE_KEY] });
    envs.set(version, e);
  }
  return e;
}

/**
 * Evaluates an admission expression (a matchCondition, a variable, a mutation) with `bindings` (`object`, `request`,
 * `variables`, …, already CEL values) and the CEL libraries of `version`; the result is converted to JSON.
 *
 * The apiserver's `Object{…}` and `JSONPatch{…}` initializers build dynamic objects whose fields are the map a JSON
 * object decodes to; here each initializer is evaluated as the map literal it stands for (`Object.spec{replicas: 2}`
 * → `{'replicas': 2}`). Whether the type names match the field path is the type checker's (`typeCheckMutations`).
 */
export function evaluateAdmissionExpression(
  source: string,
  bindings: Record<string, CelInput>,
  version: KubernetesVersion,
): AdmissionOutcome {
  const key = `${version}\n${source}`;
  try {
    let compiled = programs.get(key);
    if (!compiled) {
      const parsed = parseRule(rewriteOptionalSyntax(source), { twoVariable: true });
      const unconverted: string[] = [];
      initializersAsMaps(parsed.root, unconverted);
      compiled = { program: plan(env(version), parsed.parsed), unconverted };
      programs.set(key, compiled);
    }
    const result = compiled.program(bindings as never);
    if (isCelError(result)) return { ok: false, error: result.message };
    return { ok: true, value: celToJson(result), unconverted: compiled.unconverted };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/**
 * Every message initializer (`Object.spec{replicas: 2}`) rewritten in place to the map literal it builds; the fields
 * whose value the apiserver cannot convert are added to `unconverted`.
 */
function initializersAsMaps(e: AstExpr | undefined, unconverted: string[]): void {
  if (!e) return;
  const kind = e.exprKind;
  switch (kind.case) {
    case 'structExpr': {
      const value = kind.value as { messageName: string; entries: Array<{ keyKind: unknown; value?: AstExpr }> };
      if (value.messageName !== '') {
        const at = value.messageName.split('.').slice(1);
        for (const entry of value.entries) {
          const k = entry.keyKind as { case: string; value: unknown };
          if (k.case !== 'fieldKey') continue;
          unconverted.push(...nestedLiterals(entry.value, [...at, k.value as string]));
          entry.keyKind = { case: 'mapKey', value: stringConstant(k.value as string) };
        }
        value.messageName = '';
      }
      for (const entry of value.entries) {
        initializersAsMaps(entry.value, unconverted);
        const k = entry.keyKind as { case: string; value: unknown };
        if (k.case === 'mapKey') initializersAsMaps(k.value as AstExpr, unconverted);
      }
      return;
    }
    case 'selectExpr':
      return initializersAsMaps(kind.value.operand, unconverted);
    case 'callExpr':
      initializersAsMaps(kind.value.target, unconverted);
      kind.value.args.forEach((a) => initializersAsMaps(a, unconverted));
      return;
    case 'listExpr':
      kind.value.elements.forEach((a) => initializersAsMaps(a, unconverted));
      return;
    case 'comprehensionExpr':
      for (const part of [
        kind.value.iterRange,
        kind.value.accuInit,
        kind.value.loopCondition,
        kind.value.loopStep,
        kind.value.result,
      ]) {
        initializersAsMaps(part, unconverted);
      }
      return;
    default:
      return;
  }
}

/** A map literal, a list literal, or neither (an initializer, a value read from the object, a call…). */
function literalKind(e: AstExpr | undefined): 'map' | 'list' | undefined {
  if (e?.exprKind.case === 'listExpr') return 'list';
  if (e?.exprKind.case === 'structExpr' && e.exprKind.value.messageName === '') return 'map';
  return undefined;
}

/** The paths below a field's value (a map or list literal) whose value is itself a literal. */
function nestedLiterals(value: AstExpr | undefined, at: readonly string[]): string[] {
  const path = (key?: string) => `.${[...at, ...(key === undefined ? [] : [key])].join('.')}`;
  if (value?.exprKind.case === 'listExpr') {
    return value.exprKind.value.elements.some((x) => literalKind(x) !== undefined) ? [path()] : [];
  }
  if (literalKind(value) !== 'map' || value?.exprKind.case !== 'structExpr') return [];
  return value.exprKind.value.entries
    .filter((entry) => literalKind(entry.value) !== undefined)
    .map((entry) => {
      const k = entry.keyKind as { case: string; value?: AstExpr };
      const c = k.value?.exprKind.case === 'constExpr' ? k.value.exprKind.value.constantKind.value : undefined;
      return path(typeof c === 'string' ? c : undefined);
    });
}

function stringConstant(value: string): unknown {
  return {
    $typeName: 'cel.expr.Expr',
    id: 0n,
    exprKind: {
      case: 'constExpr',
      value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value } },
    },
  };
}

/** A CEL value as the JSON the apiserver would write (int as number, maps as objects). */
export function celToJson(v: CelValue): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  if (isCelUint(v)) return Number(v.value);
  if (isCelList(v)) return [...v].map(celToJson);
  if (isCelMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, value] of v.entries()) out[String(k)] = celToJson(value);
    return out;
  }
  throw new Error(`a value the preview cannot write as JSON (${Object.prototype.toString.call(v)})`);
}
