import { invalidShown, isRecord } from './services-field-errors';
import { Issue } from '../../apimachinery/issue';

/*
 * The mandatory API Priority and Fairness objects (k8s.io/apiserver's flowcontrol bootstrap `Mandatory*`): every
 * cluster has them, and ValidateFlowSchema / ValidatePriorityLevelConfiguration refuse any other spec under their
 * names (`spec of 'catch-all' must equal the fixed value`), on create and on the update `kubectl apply` sends to the
 * existing object. The specs are the ones the 1.28 and 1.36 apiservers hold (identical), compared after the defaults
 * and with absent, empty and zero values alike, as apimachinery's semantic equality compares them.
 */

const ALL_RULES = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};
const group = (name: string) => ({ kind: 'Group', group: { name } });

const MANDATORY_FLOW_SCHEMAS: Readonly<Record<string, object>> = {
  exempt: {
    priorityLevelConfiguration: { name: 'exempt' },
    matchingPrecedence: 1,
    rules: [{ subjects: [group('system:masters')], ...ALL_RULES }],
  },
  'catch-all': {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [group('system:unauthenticated'), group('system:authenticated')], ...ALL_RULES }],
  },
};

/** `exempt` is compared without its `spec.exempt` (ValidatePriorityLevelConfiguration lets it be tuned). */
const MANDATORY_PRIORITY_LEVELS: Readonly<Record<string, object>> = {
  exempt: { type: 'Exempt' },
  'catch-all': {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 },
  },
};

/** A FlowSchema named after a mandatory one whose (defaulted) spec differs. @internal */
export function mandatoryFlowSchemaIssues(name: unknown, spec: Record<string, any>): Issue[] {
  const fixed =
    typeof name === 'string' && Object.hasOwn(MANDATORY_FLOW_SCHEMAS, name) ? MANDATORY_FLOW_SCHEMAS[name] : undefined;
  if (!fixed || same(spec, fixed)) return [];
  return [fixedValueIssue(spec, `spec of '${String(name)}' must equal the fixed value`)];
}

/** A PriorityLevelConfiguration named after a mandatory one whose (defaulted) spec differs. @internal */
export function mandatoryPriorityLevelIssues(name: unknown, spec: Record<string, any>): Issue[] {
  const fixed =
    typeof name === 'string' && Object.hasOwn(MANDATORY_PRIORITY_LEVELS, name)
      ? MANDATORY_PRIORITY_LEVELS[name]
      : undefined;
  if (!fixed) return [];
  const compared = name === 'exempt' ? { ...spec, exempt: undefined } : spec;
  if (same(compared, fixed)) return [];
  const detail =
    name === 'exempt'
      ? "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"
      : `spec of '${name}' must equal the fixed value`;
  return [fixedValueIssue(spec, detail)];
}

/** The apiserver prints the whole internal spec (with Go pointers up to 1.33): shown here as `{…}`. */
function fixedValueIssue(spec: Record<string, any>, detail: string): Issue {
  return invalidShown('spec', spec, '{…}', detail);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Zero values dropped (absent, null, false, 0, "", [] and {} are equal), object keys sorted. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return items.length === 0 ? undefined : items.map((i) => i ?? null);
  }
  if (isRecord(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => [k, canonical(value[k])] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value === null || value === false || value === 0 || value === '' ? undefined : value;
}
