import { batchPolicyIssues } from './batch-policies';
import { nonNegativeIssues } from './pod-spec-common';
import { child, invalid, isObject, notSupported, required, tooLong } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Subdomain } from '../../apimachinery/names';

/*
 * `validateJobSpec` (pkg/apis/batch/validation), shared by a Job's spec and a CronJob's `jobTemplate.spec`: counts,
 * completion mode, the indexed job's limits, the failure, success and replacement policies. The fields a version's
 * default feature gates leave off are dropped by its apiserver before validation, so they are checked only where on.
 */

/** Which optional Job fields `version` keeps (the others it drops, or does not know). @internal */
export interface JobFeatures {
  /** JobBackoffLimitPerIndex: beta (on) from 1.29. */
  readonly backoffLimitPerIndex: boolean;
  /** JobPodReplacementPolicy: beta (on) from 1.29. */
  readonly podReplacementPolicy: boolean;
  /** JobSuccessPolicy: beta (on) from 1.31. */
  readonly successPolicy: boolean;
  /** JobManagedBy: beta (on) from 1.32. */
  readonly managedBy: boolean;
  /**
   * A pod failure policy's `onPodConditions[].status` must be set: a Job's is defaulted to True; a CronJob's job
   * template's is not, and is required on 1.28 and 1.32, not on 1.36 (1.33 to 1.35 unmeasured: not required).
   */
  readonly conditionStatusRequired: boolean;
}

/** What a Job of `version` keeps: the fields of its gates that are off are dropped before validation. @internal */
export function jobFeatures(version: KubernetesVersion): JobFeatures {
  const minor = minorOf(version);
  return {
    backoffLimitPerIndex: minor >= 29,
    podReplacementPolicy: minor >= 29,
    successPolicy: minor >= 31,
    managedBy: minor >= 32,
    conditionStatusRequired: false,
  };
}

/**
 * What a CronJob's job template keeps: everything (measured on 1.28: its backoffLimitPerIndex, maxFailedIndexes,
 * podReplacementPolicy and FailIndex rules are validated, where a Job's are dropped).
 *
 * @internal
 */
export function jobTemplateFeatures(version: KubernetesVersion): JobFeatures {
  return {
    backoffLimitPerIndex: true,
    podReplacementPolicy: true,
    successPolicy: true,
    managedBy: true,
    conditionStatusRequired: minorOf(version) <= 32,
  };
}

const MAX_PARALLELISM_INDEXED = 100_000;
const MAX_FAILED_INDEXES = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000;
const MAX_MANAGED_BY = 63;

/**
 * The checks of a JobSpec at `path` (`spec`, `spec.jobTemplate.spec`), as defaulted by the caller (a Job's
 * parallelism, completions and backoffLimit are defaulted, a CronJob's job template's are not).
 *
 * @internal
 */
export function jobSpecIssues(spec: any, path: string, features: JobFeatures): Issue[] {
  const backoffLimitPerIndex = features.backoffLimitPerIndex ? spec.backoffLimitPerIndex : undefined;
  const maxFailedIndexes = features.backoffLimitPerIndex ? spec.maxFailedIndexes : undefined;
  const issues: Issue[] = [
    ...nonNegativeIssues(child(path, 'parallelism'), spec.parallelism),
    ...nonNegativeIssues(child(path, 'completions'), spec.completions),
    ...nonNegativeIssues(child(path, 'activeDeadlineSeconds'), spec.activeDeadlineSeconds),
    ...nonNegativeIssues(child(path, 'backoffLimit'), spec.backoffLimit),
    ...nonNegativeIssues(child(path, 'ttlSecondsAfterFinished'), spec.ttlSecondsAfterFinished),
    ...nonNegativeIssues(child(path, 'backoffLimitPerIndex'), backoffLimitPerIndex),
  ];
  if (maxFailedIndexes != null) {
    issues.push(...nonNegativeIssues(child(path, 'maxFailedIndexes'), maxFailedIndexes));
    if (backoffLimitPerIndex == null) {
      issues.push(required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
    }
  }
  if (features.managedBy && typeof spec.managedBy === 'string') {
    issues.push(...managedByIssues(spec.managedBy, child(path, 'managedBy')));
  }
  const mode = spec.completionMode;
  if (mode != null && mode !== 'NonIndexed' && mode !== 'Indexed') {
    issues.push(notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
  }
  if (mode === 'Indexed') {
    issues.push(...indexedIssues(spec, path, backoffLimitPerIndex, maxFailedIndexes));
  } else if (mode == null || mode === 'NonIndexed') {
    // an unsupported mode is reported alone (measured on 1.32 and 1.36)
    const why = 'requires indexed completion mode';
    if (backoffLimitPerIndex != null) {
      issues.push(invalid(child(path, 'backoffLimitPerIndex'), backoffLimitPerIndex, why));
    }
    if (maxFailedIndexes != null) issues.push(invalid(child(path, 'maxFailedIndexes'), maxFailedIndexes, why));
  }
  issues.push(...batchPolicyIssues(spec, path, features, backoffLimitPerIndex));
  return issues;
}

function indexedIssues(spec: any, path: string, backoffLimitPerIndex: unknown, maxFailedIndexes: any): Issue[] {
  const issues: Issue[] = [];
  const { completions, parallelism } = spec;
  if (completions == null) issues.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
  if (typeof parallelism === 'number' && parallelism > MAX_PARALLELISM_INDEXED) {
    issues.push(
      invalid(
        child(path, 'parallelism'),
        parallelism,
        `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`,
      ),
    );
  }
  const failedPath = child(path, 'maxFailedIndexes');
  if (typeof completions === 'number' && typeof maxFailedIndexes === 'number' && maxFailedIndexes > completions) {
    issues.push(invalid(failedPath, maxFailedIndexes, 'must be less than or equal to completions'));
  }
  if (typeof maxFailedIndexes === 'number' && maxFailedIndexes > MAX_FAILED_INDEXES) {
    issues.push(invalid(failedPath, maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
  }
  if (typeof completions === 'number' && completions > COMPLETIONS_SOFT_LIMIT && backoffLimitPerIndex != null) {
    const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (maxFailedIndexes == null) {
      issues.push(required(failedPath, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
    }
    if (typeof parallelism === 'number' && parallelism > PARALLELISM_LIMIT_HIGH_COMPLETIONS) {
      issues.push(
        invalid(
          child(path, 'parallelism'),
          parallelism,
          `must be less than or equal to ${PARALLELISM_LIMIT_HIGH_COMPLETIONS} ${high}`,
        ),
      );
    }
    if (typeof maxFailedIndexes === 'number' && maxFailedIndexes > MAX_FAILED_INDEXES_HIGH_COMPLETIONS) {
      issues.push(
        invalid(
          failedPath,
          maxFailedIndexes,
          `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ${high}`,
        ),
      );
    }
  }
  return issues;
}

/** `IsDomainPrefixedPath` and the length limit of `managedBy`. */
function managedByIssues(value: string, path: string): Issue[] {
  if (value === '') return [required(path)];
  const slash = value.indexOf('/');
  const host = value.slice(0, Math.max(slash, 0));
  const rest = value.slice(slash + 1);
  const issues: Issue[] = [];
  if (slash <= 0 || rest === '') {
    issues.push(invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")'));
  } else {
    issues.push(...isDns1123Subdomain(host).map((e) => invalid(path, host, e)));
    if (!HTTP_PATH.test(rest)) {
      issues.push(
        invalid(path, rest, `Invalid path (regex used for validation is '${HTTP_PATH.source.slice(1, -1)}')`),
      );
    }
  }
  if (Buffer.byteLength(value) > MAX_MANAGED_BY) {
    issues.push({ ...tooLong(path, `may not be more than ${MAX_MANAGED_BY} bytes`), value });
  }
  return issues;
}

const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/**
 * A Job's `spec` as the apiserver defaults it (SetDefaults_Job: parallelism, completions, backoffLimit, completion
 * mode), without the FailIndex rules of its pod failure policy where JobBackoffLimitPerIndex is off (the apiserver
 * drops them with the gate's fields).
 *
 * @internal
 */
export function defaultedJobSpec(spec: any, version: KubernetesVersion): any {
  const s = isObject(spec) ? { ...spec } : {};
  if (
    !jobFeatures(version).backoffLimitPerIndex &&
    isObject(s.podFailurePolicy) &&
    Array.isArray(s.podFailurePolicy.rules)
  ) {
    const rules = s.podFailurePolicy.rules.filter((r: any) => !(isObject(r) && r.action === 'FailIndex'));
    s.podFailurePolicy = { ...s.podFailurePolicy, rules };
  }
  if (s.completions == null && s.parallelism == null) {
    s.completions = 1;
    s.parallelism = 1;
  }
  s.parallelism ??= 1;
  if (s.backoffLimit == null) {
    s.backoffLimit = jobFeatures(version).backoffLimitPerIndex && s.backoffLimitPerIndex != null ? 2147483647 : 6;
  }
  s.completionMode ??= 'NonIndexed';
  return s;
}
