import { BuiltinValidator } from './validator';
import { invalid } from '../../apimachinery/field';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';

/*
 * The PodSecurity admission plugin (on by default since 1.25) refuses a Namespace whose Pod Security labels it cannot
 * parse (k8s.io/pod-security-admission api.PolicyToEvaluate and its ParseLevel and ParseVersion, required valid on
 * create): a level must be one of the three standards, a version "latest" or "v1.<minor>". A label of the prefix
 * that is not one of these six keys is not its business. It runs as admission does, after the Namespace passed
 * validation, so it reports only when nothing else did (builtinObjectIssues).
 */

const LEVELS = ['privileged', 'baseline', 'restricted'] as const;
/** `^v1\.([0-9]|[1-9][0-9]*)$`, and a minor strconv.Atoi can read (the regexp lets through what overflows it). */
const VERSION = /^v1\.([0-9]|[1-9][0-9]*)$/;
const MAX_INT64 = 2n ** 63n - 1n;

function levelError(value: string): string | undefined {
  return (LEVELS as readonly string[]).includes(value) ? undefined : `must be one of ${LEVELS.join(', ')}`;
}

function versionError(value: string): string | undefined {
  if (value === 'latest') return undefined;
  const minor = VERSION.exec(value)?.[1];
  return minor !== undefined && BigInt(minor) <= MAX_INT64 ? undefined : 'must be "latest" or "v1.x"';
}

/** The Namespace's Pod Security labels, in the order PolicyToEvaluate reads them. @internal */
export const podSecurityLabelIssues: BuiltinValidator = (object, version) => {
  const labels = object.metadata?.labels;
  if (!labels || typeof labels !== 'object') return [];
  const issues: Issue[] = [];
  for (const mode of ['enforce', 'audit', 'warn']) {
    for (const [key, check] of [
      [`pod-security.kubernetes.io/${mode}`, levelError],
      [`pod-security.kubernetes.io/${mode}-version`, versionError],
    ] as const) {
      const value = labels[key];
      if (typeof value !== 'string') continue;
      const error = check(value);
      if (error) issues.push(invalid(`metadata.labels[${key}]`, value, `${fieldValue(value, version)}: ${error}`));
    }
  }
  return issues;
};
