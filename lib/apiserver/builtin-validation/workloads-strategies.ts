import { nonNegativeIssues } from './pod-spec-common';
import { intOrPercentIssues, intOrPercentValue, notMoreThan100Percent } from './workloads-numbers';
import { child, forbidden, invalid, isObject, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';

/*
 * The update strategies of the apps kinds, validated as defaulted (apps/v1 defaults.go): a missing or empty type is
 * RollingUpdate; a Deployment's missing maxUnavailable and maxSurge are 25%, a DaemonSet's 1 and 0, a StatefulSet's
 * partition 0.
 */

/** `ValidateDeploymentStrategy` + `ValidateRollingUpdateDeployment`. @internal */
export function deploymentStrategyIssues(strategy: any, path: string): Issue[] {
  const s = isObject(strategy) ? strategy : {};
  const type = s.type || 'RollingUpdate';
  const rollingPath = child(path, 'rollingUpdate');
  if (type === 'Recreate') {
    return s.rollingUpdate != null
      ? [forbidden(rollingPath, "may not be specified when strategy `type` is 'Recreate'")]
      : [];
  }
  if (type !== 'RollingUpdate') return [notSupported(path, s, ['Recreate', 'RollingUpdate'])];
  const ru = isObject(s.rollingUpdate) ? s.rollingUpdate : {};
  const maxUnavailable = ru.maxUnavailable ?? '25%';
  const maxSurge = ru.maxSurge ?? '25%';
  const unavailablePath = child(rollingPath, 'maxUnavailable');
  return [
    ...intOrPercentIssues(unavailablePath, maxUnavailable),
    ...intOrPercentIssues(child(rollingPath, 'maxSurge'), maxSurge),
    ...(intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0
      ? [invalid(unavailablePath, maxUnavailable, 'may not be 0 when `maxSurge` is 0')]
      : []),
    // a Deployment may surge beyond 100%: only maxUnavailable is bounded
    ...notMoreThan100Percent(unavailablePath, maxUnavailable),
  ];
}

/** `ValidateDaemonSetUpdateStrategy` + `ValidateRollingUpdateDaemonSet`: exactly one of the two is non-zero. @internal */
export function daemonSetStrategyIssues(strategy: any, path: string): Issue[] {
  const s = isObject(strategy) ? strategy : {};
  const type = s.type || 'RollingUpdate';
  if (type === 'OnDelete') return [];
  if (type !== 'RollingUpdate') return [notSupported(path, s, ['RollingUpdate', 'OnDelete'])];
  const rollingPath = child(path, 'rollingUpdate');
  const ru = isObject(s.rollingUpdate) ? s.rollingUpdate : {};
  const maxUnavailable = ru.maxUnavailable ?? 1;
  const maxSurge = ru.maxSurge ?? 0;
  const unavailablePath = child(rollingPath, 'maxUnavailable');
  const surgePath = child(rollingPath, 'maxSurge');
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(maxSurge) !== 0;
  return [
    ...intOrPercentIssues(unavailablePath, maxUnavailable),
    ...intOrPercentIssues(surgePath, maxSurge),
    ...notMoreThan100Percent(unavailablePath, maxUnavailable),
    ...notMoreThan100Percent(surgePath, maxSurge),
    ...(hasUnavailable && hasSurge
      ? [invalid(surgePath, maxSurge, 'may not be set when maxUnavailable is non-zero')]
      : []),
    ...(!hasUnavailable && !hasSurge ? [required(unavailablePath, 'cannot be 0 when maxSurge is 0')] : []),
  ];
}

/** The StatefulSet's `updateStrategy` checks of `ValidateStatefulSetSpec`. @internal */
export function statefulSetStrategyIssues(strategy: any, path: string): Issue[] {
  const s = isObject(strategy) ? strategy : {};
  const type = s.type || 'RollingUpdate';
  const rollingPath = child(path, 'rollingUpdate');
  if (type === 'OnDelete') {
    return s.rollingUpdate != null
      ? [invalid(rollingPath, s.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'")]
      : [];
  }
  if (type !== 'RollingUpdate') return [invalid(path, s, "must be 'RollingUpdate' or 'OnDelete'")];
  if (!isObject(s.rollingUpdate)) return [];
  // `maxUnavailable` is not checked: the MaxUnavailableStatefulSet gate is off (alpha) on every measured version,
  // the apiserver drops the field before validation
  return nonNegativeIssues(child(rollingPath, 'partition'), s.rollingUpdate.partition);
}
