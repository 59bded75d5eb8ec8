import { MUTATION_FUNCTIONS } from './mutation-types';
import { AUTHZ_FUNCTIONS, policyDeclarations, PolicyVariables, withheldIn } from './policy-environment';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { AstExpr } from '../cel/ast';
import { CelType, DYN, typeName } from '../cel/cel-types';
import { CheckedExpression, checkExpression } from '../cel/type-checker';

/** One admission expression compiled like the apiserver does (`CompileCELExpression`), before any result-type check. */
export interface CompiledExpression {
  readonly checked: CheckedExpression;
  /** cel-go's `issues.String()`: every error with the source line and a caret under its column. */
  readonly errorText?: string;
  readonly type: CelType;
  /**
   * Where the version does not validate literals at compile: Go's error for a bad regex, duration or timestamp
   * literal, which fails building the program after a successful compile (`Internal error: program instantiation
   * failed: …`).
   */
  readonly programError?: string;
}

export function compileAdmissionExpression(
  source: string,
  vars: PolicyVariables,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): CompiledExpression {
  const limit = recursionLimitError(source);
  if (limit) {
    return {
      checked: { type: DYN, errors: [limit], unsupported: [], usesOldSelf: false },
      errorText: limit,
      type: DYN,
    };
  }
  // the CEL environment of `version` (celEnvironment: libraries, optional syntax, the checker's cel-go behaviour), with
  // the authorizer library of admission expressions
  const functions = vars.structs ? [...AUTHZ_FUNCTIONS, ...MUTATION_FUNCTIONS] : AUTHZ_FUNCTIONS;
  const checked = checkExpression(source, policyDeclarations(vars), {
    functions,
    withheld: withheldIn(version),
    strict: true,
    version,
    structs: vars.structs,
  });
  // cel-go's parser (ANTLR) words its errors differently from the local one: both are marked `Syntax error:`
  const depth = checked.ast ? callDepth(checked.ast.root) : 0;
  if (depth > MAX_RECURSION_DEPTH) {
    const error = 'ERROR: <input>:-1:0: max recursion depth exceeded';
    return { checked, errorText: error, type: DYN };
  }
  const errors = checked.ast
    ? checked.errors
    : checked.errors.map((e) => e.replace(/^(ERROR: <input>:\d+:\d+: )/, '$1Syntax error: '));
  const errorText = errors.length > 0 ? errors.map((e) => withSnippet(e, source)).join('\n') : undefined;
  return { checked, errorText, type: checked.type, programError: errorText ? undefined : checked.literalError };
}

const MAX_RECURSION_DEPTH = 250;

/**
 * cel-go's parser refuses expressions nested deeper than 250 (parentheses, list and map literals; measured on
 * kube-apiserver 1.32: 249 nested parentheses inside a comparison pass, 250 fail).
 */
function recursionLimitError(source: string): string | undefined {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return max + 1 > MAX_RECURSION_DEPTH
    ? `ERROR: <input>:-1:0: expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`
    : undefined;
}

/**
 * How deep calls nest in the parsed expression (`&&` and `||` chains are balanced by the parser; 250 chained `+`
 * inside a comparison are refused with `max recursion depth exceeded`, 249 pass).
 */
function callDepth(e: AstExpr): number {
  const k = e.exprKind;
  switch (k.case) {
    case 'callExpr': {
      const inner = Math.max(0, ...[k.value.target, ...k.value.args].map((x) => (x ? callDepth(x) : 0)));
      return k.value.function === '_&&_' || k.value.function === '_||_' ? inner : inner + 1;
    }
    case 'selectExpr':
      return k.value.operand ? callDepth(k.value.operand) : 0;
    case 'listExpr':
      return Math.max(0, ...k.value.elements.map(callDepth));
    case 'comprehensionExpr':
      return Math.max(
        0,
        ...[k.value.iterRange, k.value.accuInit, k.value.loopStep, k.value.result].map((x) => (x ? callDepth(x) : 0)),
      );
    default:
      return 0;
  }
}

/**
 * cel-go's `Error.ToDisplayString`: `ERROR: <input>:L:C: message`, then the source line (tabs as spaces) and a
 * line of C-1 dots ending in a caret.
 */
function withSnippet(error: string, source: string): string {
  const at = /^ERROR: <input>:(\d+):(\d+):/.exec(error);
  if (!at) return error;
  const line = source.split('\n')[Number(at[1]) - 1];
  if (line === undefined) return error;
  return `${error}\n | ${line.replace(/\t/g, ' ')}\n | ${'.'.repeat(Number(at[2]) - 1)}^`;
}

/** The name cel-go prints for a result type (`must evaluate to bool but got dyn`). */
export function resultTypeName(t: CelType): string {
  return typeName(t);
}
