import { arr, dnsLabelIssues, dnsSubdomainIssues, nameIssues, obj, str } from './pod-spec-common';
import { child, duplicate, forbidden, index, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';
import { isQualifiedName, isValidLabelValue } from '../../apimachinery/names';

/*
 * Where a pod may run: tolerations (ValidateTolerations), node and pod (anti-)affinity (validateAffinity) and topology
 * spread constraints (validateTopologySpreadConstraints). nodeSelector is ValidateLabels, in pod-spec.ts.
 */

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** ValidateTolerations. @internal */
export function tolerationsIssues(path: string, tolerations: unknown, version: KubernetesVersion): Issue[] {
  return arr(tolerations).flatMap((raw, i) => {
    const t = obj(raw);
    const at = index(path, i);
    const k = str(t.key);
    const operator = str(t.operator);
    const value = str(t.value);
    const effect = str(t.effect);
    const issues: Issue[] = k ? nameIssues(child(at, 'key'), k, isQualifiedName(k, version)) : [];
    if (!k && operator !== 'Exists') {
      issues.push(
        invalid(
          child(at, 'operator'),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t.tolerationSeconds != null && effect !== 'NoExecute') {
      issues.push(invalid(child(at, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === '' || operator === 'Equal') {
      const errs = isValidLabelValue(value, version);
      if (errs.length) issues.push(invalid(child(at, 'operator'), value, errs.join(';')));
    } else if (operator === 'Exists') {
      if (value) issues.push(invalid(child(at, 'operator'), value, "value must be empty when `operator` is 'Exists'"));
    } else {
      issues.push(notSupported(child(at, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect && !EFFECTS.includes(effect)) issues.push(notSupported(child(at, 'effect'), effect, EFFECTS));
    return issues;
  });
}

/**
 * ValidateNodeSelectorRequirement. `checkValues`: each value a label value, for required terms from 1.33
 * (AllowInvalidLabelValueInRequiredNodeAffinity is for updates of old objects; measured: 1.32 accepts `a b`, 1.36
 * refuses it; 1.33 to 1.35 unmeasured); preferred terms never (they may match on a one-node cluster).
 */
function requirementIssues(path: string, raw: unknown, version: KubernetesVersion, checkValues: boolean): Issue[] {
  const r = obj(raw);
  const k = str(r.key);
  const values = arr(r.values);
  const valuesPath = child(path, 'values');
  const issues: Issue[] = [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        issues.push(required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        issues.push(forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) {
        issues.push(required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
      break;
    default:
      issues.push(invalid(child(path, 'operator'), str(r.operator), 'not a valid selector operator'));
  }
  issues.push(...nameIssues(child(path, 'key'), k, isQualifiedName(k, version)));
  if (checkValues && minorOf(version) >= 33) {
    values.forEach((v, i) =>
      issues.push(...nameIssues(index(valuesPath, i), str(v), isValidLabelValue(str(v), version))),
    );
  }
  return issues;
}

/** ValidateNodeFieldSelectorRequirement: `metadata.name` In or NotIn one node name. */
function fieldRequirementIssues(path: string, raw: unknown): Issue[] {
  const r = obj(raw);
  const values = arr(r.values).map(str);
  const issues: Issue[] = [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length !== 1) {
      issues.push(
        required(
          child(path, 'values'),
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
    }
  } else {
    issues.push(invalid(child(path, 'operator'), str(r.operator), 'not a valid selector operator'));
  }
  if (str(r.key) !== 'metadata.name') {
    issues.push(invalid(child(path, 'key'), str(r.key), 'not a valid field selector key'));
  } else {
    values.forEach((v, i) => issues.push(...dnsSubdomainIssues(index(child(path, 'values'), i), v)));
  }
  return issues;
}

function nodeSelectorTermIssues(path: string, raw: unknown, version: KubernetesVersion, required_: boolean): Issue[] {
  return [
    ...arr(obj(raw).matchExpressions).flatMap((r, i) =>
      requirementIssues(index(child(path, 'matchExpressions'), i), r, version, required_),
    ),
    ...arr(obj(raw).matchFields).flatMap((r, i) => fieldRequirementIssues(index(child(path, 'matchFields'), i), r)),
  ];
}

/**
 * ValidateNodeSelector of a required selector (a pod's required node affinity, a PersistentVolume's): at least one
 * term, each term's requirements, their values checked as label values (from 1.33, requirementIssues).
 *
 * @internal
 */
export function nodeSelectorIssues(path: string, raw: unknown, version: KubernetesVersion): Issue[] {
  const terms = arr(obj(raw).nodeSelectorTerms);
  const termsPath = child(path, 'nodeSelectorTerms');
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => nodeSelectorTermIssues(index(termsPath, i), t, version, true));
}

/**
 * The label keys a term or constraint adds to its selector (validateMatchLabelKeysAndMismatchLabelKeys at `path`, the
 * term's): each list Forbidden without a labelSelector, else each key a label key; a matchLabelKeys key that a
 * matchExpression repeats (its matchLabels or an earlier expression have it) `exists in both` at `path[i]`; a key in
 * both lists at `matchLabelKeys[i]`. A Pod's create merges first each key the Pod has a label of into its selector as
 * an expression (MatchLabelKeysInPodAffinity; 1.34+ for topology spread): `podLabels`, a template's none.
 */
function labelKeysIssues(
  path: string,
  t: Record<string, any>,
  version: KubernetesVersion,
  podLabels: Record<string, unknown> | undefined,
): Issue[] {
  const matchKeys = arr(t.matchLabelKeys).map(str);
  const mismatchKeys = arr(t.mismatchLabelKeys).map(str);
  const selector = t.labelSelector == null ? undefined : obj(t.labelSelector);
  const issues: Issue[] = [];
  for (const [field, keys] of [
    ['matchLabelKeys', matchKeys],
    ['mismatchLabelKeys', mismatchKeys],
  ] as const) {
    if (keys.length === 0) continue;
    const at = child(path, field);
    if (!selector) issues.push(forbidden(at, 'must not be specified when labelSelector is not set'));
    else keys.forEach((k, i) => issues.push(...nameIssues(index(at, i), k, isQualifiedName(k, version))));
  }
  if (selector) {
    const lastIndex = new Map(matchKeys.map((k, i) => [k, i]));
    const seen = new Set(Object.keys(obj(selector.matchLabels)));
    const merged = podLabels ? [...matchKeys, ...mismatchKeys].filter((k) => k in podLabels) : [];
    for (const k of [...arr(selector.matchExpressions).map((e) => str(obj(e).key)), ...merged]) {
      const i = lastIndex.get(k);
      if (i !== undefined && seen.has(k)) {
        issues.push(invalid(index(path, i), k, 'exists in both matchLabelKeys and labelSelector'));
      }
      seen.add(k);
    }
  }
  matchKeys.forEach((k, i) => {
    if (mismatchKeys.includes(k)) {
      issues.push(
        invalid(index(child(path, 'matchLabelKeys'), i), k, 'exists in both matchLabelKeys and mismatchLabelKeys'),
      );
    }
  });
  return issues;
}

function weightIssues(path: string, weight: unknown): Issue[] {
  // an absent weight is Go's zero, out of the range too
  const w = weight ?? 0;
  return typeof w === 'number' && (w < 1 || w > 100) ? [invalid(path, w, 'must be in the range 1-100')] : [];
}

function podAffinityTermIssues(
  path: string,
  raw: unknown,
  version: KubernetesVersion,
  podLabels: Record<string, unknown> | undefined,
): Issue[] {
  const t = obj(raw);
  const topologyKey = str(t.topologyKey);
  const keyPath = child(path, 'topologyKey');
  const issues = [
    ...labelSelectorIssues(t.labelSelector, child(path, 'labelSelector'), version),
    ...labelSelectorIssues(t.namespaceSelector, child(path, 'namespaceSelector'), version),
    // matchLabelKeys and mismatchLabelKeys: fields from 1.29, kept from 1.31 (MatchLabelKeysInPodAffinity beta)
    ...(minorOf(version) >= 31 ? labelKeysIssues(path, t, version, podLabels) : []),
    // each at `.namespace`, not `.namespaces[i]`: upstream's path (measured)
    ...arr(t.namespaces).flatMap((n) => (typeof n === 'string' ? dnsLabelIssues(child(path, 'namespace'), n) : [])),
  ];
  if (topologyKey === '') {
    issues.push(required(keyPath, 'can not be empty'));
    issues.push(...nameIssues(keyPath, '', isQualifiedName('', version)));
  } else {
    issues.push(...nameIssues(keyPath, topologyKey, isQualifiedName(topologyKey, version)));
  }
  return issues;
}

/** validateAffinity. @internal */
export function affinityIssues(
  path: string,
  raw: unknown,
  version: KubernetesVersion,
  podLabels?: Record<string, unknown>,
): Issue[] {
  if (raw == null) return [];
  const a = obj(raw);
  const issues: Issue[] = [];
  const node = obj(a.nodeAffinity);
  const nodePath = child(path, 'nodeAffinity');
  if (node.requiredDuringSchedulingIgnoredDuringExecution != null) {
    const reqPath = child(nodePath, 'requiredDuringSchedulingIgnoredDuringExecution');
    issues.push(...nodeSelectorIssues(reqPath, node.requiredDuringSchedulingIgnoredDuringExecution, version));
  }
  arr(node.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw2, i) => {
    const at = index(child(nodePath, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
    const p = obj(raw2);
    issues.push(
      ...weightIssues(child(at, 'weight'), p.weight),
      ...nodeSelectorTermIssues(child(at, 'preference'), p.preference, version, false),
    );
  });
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pa = obj(a[kind]);
    const paPath = child(path, kind);
    arr(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      issues.push(
        ...podAffinityTermIssues(
          index(child(paPath, 'requiredDuringSchedulingIgnoredDuringExecution'), i),
          t,
          version,
          podLabels,
        ),
      ),
    );
    arr(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw2, i) => {
      const at = index(child(paPath, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      const w = obj(raw2);
      issues.push(
        ...weightIssues(child(at, 'weight'), w.weight),
        ...podAffinityTermIssues(child(at, 'podAffinityTerm'), w.podAffinityTerm, version, podLabels),
      );
    });
  }
  return issues;
}

const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];
const POLICIES = ['Honor', 'Ignore'];

/**
 * A constraint's matchLabelKeys. Up to 1.32 (validateMatchLabelKeysInTopologySpread): without a labelSelector
 * Forbidden, and each key a label key and in no key of the selector, at `matchLabelKeys[i]`. 1.36 checks them as pod
 * affinity's (validateMatchLabelKeysAndMismatchLabelKeys at the constraint's path): without a selector Forbidden only;
 * each key a label key; `exists in both` only for a key of the keys that a matchExpression repeats, reported at the
 * constraint's path indexed (`topologySpreadConstraints[0][0]`, measured; labelKeysIssues). A Pod's create merges
 * its labels' keys into the selector first (MatchLabelKeysInPodTopologySpreadSelectorMerge, on from 1.34; templates
 * are not merged): a key both in matchLabels and in matchLabelKeys is refused in a Pod only. 1.33 to 1.35 are
 * unmeasured: checked as 1.36 from 1.34.
 */
function matchLabelKeysIssues(
  at: string,
  c: Record<string, any>,
  version: KubernetesVersion,
  podLabels: Record<string, unknown> | undefined,
): Issue[] {
  const keys = arr(c.matchLabelKeys).map(str);
  if (keys.length === 0) return [];
  const keysPath = child(at, 'matchLabelKeys');
  const selector = c.labelSelector == null ? undefined : obj(c.labelSelector);
  const labels = Object.keys(obj(selector?.matchLabels));
  const expressions = arr(selector?.matchExpressions).map((e) => str(obj(e).key));
  if (minorOf(version) < 34) {
    const issues: Issue[] = selector
      ? []
      : [forbidden(keysPath, 'must not be specified when labelSelector is not set')];
    const selectorKeys = new Set([...labels, ...expressions]);
    keys.forEach((k, i) => {
      issues.push(...nameIssues(index(keysPath, i), k, isQualifiedName(k, version)));
      if (selectorKeys.has(k)) {
        issues.push(invalid(index(keysPath, i), k, 'exists in both matchLabelKeys and labelSelector'));
      }
    });
    return issues;
  }
  return labelKeysIssues(at, { matchLabelKeys: keys, labelSelector: c.labelSelector }, version, podLabels);
}

/**
 * validateTopologySpreadConstraints. The topologyKey must only be set (ValidateTopologyKey: no name check, measured
 * on the three versions). `podLabels`: a Pod's own labels, merged into its selectors on create (not a template's).
 *
 * @internal
 */
export function topologySpreadIssues(
  path: string,
  raw: unknown,
  version: KubernetesVersion,
  podLabels?: Record<string, unknown>,
): Issue[] {
  const constraints = arr(raw).map(obj);
  return constraints.flatMap((c, i) => {
    const at = index(path, i);
    const issues: Issue[] = [];
    // an absent maxSkew is Go's zero
    const maxSkew = c.maxSkew ?? 0;
    if (typeof maxSkew === 'number' && maxSkew <= 0) {
      issues.push(invalid(child(at, 'maxSkew'), maxSkew, 'must be greater than zero'));
    }
    const topologyKey = str(c.topologyKey);
    if (topologyKey === '') issues.push(required(child(at, 'topologyKey'), 'can not be empty'));
    const when = str(c.whenUnsatisfiable);
    if (!WHEN_UNSATISFIABLE.includes(when)) {
      issues.push(notSupported(child(at, 'whenUnsatisfiable'), when, WHEN_UNSATISFIABLE));
    }
    const repeated = constraints
      .slice(i + 1)
      .some((o) => str(o.topologyKey) === topologyKey && str(o.whenUnsatisfiable) === when);
    if (repeated) issues.push(duplicate(child(at, '{topologyKey, whenUnsatisfiable}'), `{${topologyKey}, ${when}}`));
    // validateMinDomains: both messages when both apply
    if (c.minDomains != null) {
      if (typeof c.minDomains === 'number' && c.minDomains <= 0) {
        issues.push(invalid(child(at, 'minDomains'), c.minDomains, 'must be greater than zero'));
      }
      if (when !== 'DoNotSchedule') {
        issues.push(
          invalid(
            child(at, 'minDomains'),
            c.minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${when}`,
          ),
        );
      }
    }
    for (const p of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (c[p] != null && !POLICIES.includes(c[p])) issues.push(notSupported(child(at, p), c[p], POLICIES));
    }
    issues.push(...matchLabelKeysIssues(at, c, version, podLabels));
    issues.push(...labelSelectorIssues(c.labelSelector, child(at, 'labelSelector'), version));
    return issues;
  });
}

/**
 * validateSchedulingGates: each gate's name a qualified name, once. On create a Pod may have gates (only their removal
 * is an update's), but no nodeName with them (ValidatePodCreate; a template's nodeName and gates are accepted).
 *
 * @internal
 */
export function schedulingGatesIssues(
  path: string,
  spec: Record<string, any>,
  version: KubernetesVersion,
  pod: boolean,
): Issue[] {
  const gatesPath = child(path, 'schedulingGates');
  const gates = arr(spec.schedulingGates);
  const seen = new Set<string>();
  const issues = gates.flatMap((g, i) => {
    const name = str(obj(g).name);
    const found = [
      ...nameIssues(index(gatesPath, i), name, isQualifiedName(name, version)),
      ...(seen.has(name) ? [duplicate(index(gatesPath, i), name)] : []),
    ];
    seen.add(name);
    return found;
  });
  if (pod && str(spec.nodeName) !== '' && gates.length > 0) {
    issues.push(forbidden(child(path, 'nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  }
  return issues;
}
