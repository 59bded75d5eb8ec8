import { IConstruct } from 'constructs';
import {
  KubernetesVersion, parseKubernetesVersion, SUPPORTED_KUBERNETES_RANGE, versionsBetween,
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
   * @default '1.36'
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
      problems.push(`kubernetesVersions.${field}: ${JSON.stringify(text)} is not a supported Kubernetes version `
        + `(${SUPPORTED_KUBERNETES_RANGE.min} to ${SUPPORTED_KUBERNETES_RANGE.max})`);
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
export function perVersion(versions: readonly KubernetesVersion[], messages: (v: KubernetesVersion) => string[]): string[] {
  const seen = new Map<string, KubernetesVersion[]>();
  for (const v of versions) for (const m of messages(v)) seen.set(m, [...(seen.get(m) ?? []), v]);
  return [...seen].map(([m, on]) => (on.length === versions.length ? m : `on Kubernetes ${on.join(', ')}: ${m}`));
}
