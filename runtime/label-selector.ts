/**
 * `metav1.LabelSelector` semantics (k8s.io/apimachinery `LabelSelectorAsSelector`).
 *
 * Guarantees:
 * - `matchLabels` and every `matchExpressions` requirement must all hold (AND).
 * - An empty selector (`{}`) matches every label set; `null`/`undefined` matches none, as in
 *   apimachinery (`labels.Nothing()`). Callers whose API gives `nil` another meaning (prometheus-operator's
 *   `serviceMonitorNamespaceSelector: nil` = "the object's own namespace") translate it before matching.
 * - `In`/`NotIn` need a non-empty `values`, `Exists`/`DoesNotExist` an empty one: {@link labelSelectorProblems}
 *   reports violations, one per field, as the apiserver's validation names them.
 */

/** One `matchExpressions` requirement. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** `metav1.LabelSelector`. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** Label sets as objects carry them. */
export type Labels = Readonly<Record<string, string>>;

/** True if `selector` selects `labels` (see module docs for null and empty selectors). */
export function labelSelectorMatches(selector: LabelSelector | null | undefined, labels: Labels | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (have[k] !== v) return false;
  for (const req of selector.matchExpressions ?? []) if (!requirementMatches(req, have)) return false;
  return true;
}

function requirementMatches(req: LabelSelectorRequirement, labels: Labels): boolean {
  const present = Object.prototype.hasOwnProperty.call(labels, req.key);
  switch (req.operator) {
    case 'In':
      return present && (req.values ?? []).includes(labels[req.key]);
    case 'NotIn':
      return !present || !(req.values ?? []).includes(labels[req.key]);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    default:
      return false; // unknown operators select nothing (the apiserver refuses them on built-in kinds)
  }
}

/** What is wrong with a selector, each naming `path` and the field (empty when valid). */
export function labelSelectorProblems(selector: LabelSelector | null | undefined, path: string): string[] {
  const out: string[] = [];
  (selector?.matchExpressions ?? []).forEach((req, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const n = req.values?.length ?? 0;
    if (req.operator === 'In' || req.operator === 'NotIn') {
      if (n === 0) out.push(`${at}.values: must be non-empty when operator is ${req.operator}`);
    } else if (req.operator === 'Exists' || req.operator === 'DoesNotExist') {
      if (n > 0) {
        out.push(`${at}.values: must be empty when operator is ${req.operator}, got ${JSON.stringify(req.values)}`);
      }
    } else {
      out.push(`${at}.operator: must be In, NotIn, Exists or DoesNotExist, got '${req.operator}'`);
    }
  });
  return out;
}
