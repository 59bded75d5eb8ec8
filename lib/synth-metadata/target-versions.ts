import { IConstruct } from 'constructs';
import { formatIssue, Issue } from '../apimachinery/issue';
import {
  KubernetesVersion,
  parseKubernetesVersion,
  SUPPORTED_KUBERNETES_RANGE,
  versionsBetween,
} from '../apimachinery/kubernetes-versions';

/** The Kubernetes versions an app supports: every minor version from `min` to `max`. */
export interface KubernetesVersionRange {
  /**
   * The oldest version the app's manifests must install on (`1.28`, `v1.30`, `1.31.4`: the minor version counts).
   * @default '1.28'
   */
  readonly min?: string;
  /**
   * The newest version the app's manifests must install on.
   * @default '1.37'
   */
  readonly max?: string;
}

const CONTEXT_KEY = 'cdk8s-operator:kubernetesVersions';

/**
 * The versions an app targets, as `OperatorApp` declares them (tree context, so every construct of the app reads
 * the same range); undefined outside such an app.
 *
 * @internal
 */
export function targetVersions(scope: IConstruct): KubernetesVersion[] | undefined {
  const range = scope.node.tryGetContext(CONTEXT_KEY) as { min: KubernetesVersion; max: KubernetesVersion } | undefined;
  return range ? versionsBetween(range.min, range.max) : undefined;
}

/**
 * Declares the range on an app (before any child is added) and returns what is wrong with it.
 *
 * @internal
 */
export function declareTargetVersions(app: IConstruct, range: KubernetesVersionRange = {}): string[] {
  const problems: string[] = [];
  const read = (field: 'min' | 'max'): KubernetesVersion => {
    const text = range[field] ?? SUPPORTED_KUBERNETES_RANGE[field];
    const version = parseKubernetesVersion(text);
    if (!version) {
      problems.push(
        `kubernetesVersions.${field}: ${JSON.stringify(text)} is not a supported Kubernetes version ` +
          `(${SUPPORTED_KUBERNETES_RANGE.min} to ${SUPPORTED_KUBERNETES_RANGE.max})`,
      );
      return SUPPORTED_KUBERNETES_RANGE[field];
    }
    return version;
  };
  const min = read('min');
  const max = read('max');
  if (versionsBetween(min, max).length === 0) problems.push(`kubernetesVersions: min ${min} is newer than max ${max}`);
  app.node.setContext(CONTEXT_KEY, { min, max });
  return problems;
}

/**
 * The messages of each version, once each: a message of only some versions says which (`on Kubernetes 1.28, 1.29:
 * …`), the others as they are.
 *
 * @internal
 */
export function perVersion(
  versions: readonly KubernetesVersion[],
  messages: (v: KubernetesVersion) => string[],
): string[] {
  const seen = new Map<string, KubernetesVersion[]>();
  for (const v of versions) for (const m of messages(v)) seen.set(m, [...(seen.get(m) ?? []), v]);
  return [...seen].map(([m, on]) => (on.length === versions.length ? m : `on Kubernetes ${on.join(', ')}: ${m}`));
}

/**
 * {@link perVersion} for issues, with one problem counted once: where versions word the same mistake otherwise (the
 * same field and kind of error, e.g. `Too long` worded `may not be longer than 3` up to 1.31 and `may not be more than
 * 3 bytes` from 1.32), one line in the newest version's words names the older wordings after it, instead of one line
 * per wording.
 *
 * @internal
 */
export function perVersionIssues(
  versions: readonly KubernetesVersion[],
  issues: (v: KubernetesVersion) => readonly Issue[],
): string[] {
  // field and the error's kind (the message up to its first colon: `Too long`, `Unsupported value`, `Invalid value`)
  const keyOf = (i: Issue) => `${i.path}\u0000${i.message.split(':')[0]}`;
  const byKey = new Map<string, Map<KubernetesVersion, string[]>>();
  for (const v of versions) {
    for (const i of issues(v)) {
      const key = keyOf(i);
      const on = byKey.get(key) ?? byKey.set(key, new Map()).get(key)!;
      on.set(v, [...(on.get(v) ?? []), formatIssue(i)]);
    }
  }
  const out: string[] = [];
  for (const on of byKey.values()) {
    // two messages of one kind for one field on one version are two problems: as they are
    if ([...on.values()].some((ms) => ms.length > 1)) {
      out.push(...perVersion(versions, (v) => on.get(v) ?? []));
      continue;
    }
    const wordings = new Map<string, KubernetesVersion[]>();
    for (const [v, [m]] of on) wordings.set(m, [...(wordings.get(m) ?? []), v]);
    const reporting = [...on.keys()];
    const prefix = reporting.length === versions.length ? '' : `on Kubernetes ${reporting.join(', ')}: `;
    const [newest, ...older] = [...wordings].reverse();
    const got = / \(got [^()]*\)$/.exec(newest[0])?.[0];
    const path = newest[0].slice(0, newest[0].indexOf(': ') + 2);
    const others = older
      .reverse()
      .map(
        ([m, vs]) =>
          `on Kubernetes ${vs.join(', ')} worded: ${(got && m.endsWith(got) ? m.slice(0, -got.length) : m).slice(path.length)}`,
      );
    out.push(`${prefix}${newest[0]}${others.length ? ` (${others.join('; ')})` : ''}`);
  }
  return out;
}
