import { isObject } from '../../apimachinery/field';
import { isQualifiedName, isValidLabelValue } from '../../apimachinery/names';

/*
 * The label selectors of the workload kinds (`spec.selector` of a Deployment, StatefulSet, DaemonSet, ReplicaSet,
 * Job), beyond `ValidateLabelSelector` (label-selector.ts): `LabelSelectorAsSelector` (whether the selector converts at all)
 * and `Selector.Matches` (whether it selects the pod template's labels).
 */

/** `{matchLabels, matchExpressions}` as the app emits it. @internal */
export interface LabelSelectorLike {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}

const SET_OPERATORS = ['In', 'NotIn'];
const EXISTENCE_OPERATORS = ['Exists', 'DoesNotExist'];

/**
 * Whether `LabelSelectorAsSelector` converts the selector: it refuses what `labels.NewRequirement` refuses (an
 * unknown operator, a set operator without values, an existence operator with values, a bad key or value). The
 * validations skip the template-labels match when it does not.
 *
 * @internal
 */
export function selectorConverts(selector: LabelSelectorLike | undefined): boolean {
  if (selector === undefined) return true;
  const keyOk = (k: string) => isQualifiedName(k).length === 0;
  const valueOk = (v: string) => isValidLabelValue(v).length === 0;
  const labelsOk = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => keyOk(k) && valueOk(String(v ?? '')));
  const expressionsOk = expressionsOf(selector).every((e) => {
    const values = e.values ?? [];
    if (!keyOk(String(e.key ?? '')) || !values.every((v) => valueOk(String(v)))) return false;
    if (SET_OPERATORS.includes(e.operator)) return values.length > 0;
    if (EXISTENCE_OPERATORS.includes(e.operator)) return values.length === 0;
    return false;
  });
  return labelsOk && expressionsOk;
}

/** Whether the selector has no requirement at all (`{}`: selects everything). @internal */
export function selectorIsEmpty(selector: LabelSelectorLike): boolean {
  return Object.keys(selector.matchLabels ?? {}).length + expressionsOf(selector).length === 0;
}

/**
 * `Selector.Matches(labels)` of a converted selector; a missing selector converts to `labels.Nothing()`, which
 * matches nothing.
 *
 * @internal
 */
export function selectorMatches(
  selector: LabelSelectorLike | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (selector === undefined) return false;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
  const labelsMatch = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => has(k) && labels[k] === v);
  return (
    labelsMatch &&
    expressionsOf(selector).every((e) => {
      const values = e.values ?? [];
      switch (e.operator) {
        case 'In':
          return has(e.key) && values.includes(labels[e.key]);
        case 'NotIn':
          return !has(e.key) || !values.includes(labels[e.key]);
        case 'Exists':
          return has(e.key);
        default:
          return !has(e.key);
      }
    })
  );
}

/** The selector at `value` when it is an object (the decoding refuses other types before validation). @internal */
export function selectorAt(value: unknown): LabelSelectorLike | undefined {
  return isObject(value) ? (value as LabelSelectorLike) : undefined;
}

/** The labels of a pod template (`template.metadata.labels`), `{}` when it has none. @internal */
export function templateLabels(template: any): Record<string, string> {
  const labels = template?.metadata?.labels;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}

type Requirement = NonNullable<LabelSelectorLike['matchExpressions']>[number];

function expressionsOf(selector: LabelSelectorLike): readonly Requirement[] {
  return Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions.filter((e): e is Requirement => isObject(e))
    : [];
}
