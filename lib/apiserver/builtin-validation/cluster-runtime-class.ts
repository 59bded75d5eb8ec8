import { resourcesIssues } from './pod-spec-resources';
import { tolerationsIssues } from './pod-spec-scheduling';
import { invalidValue, isRecord } from './services-field-errors';
import { required } from '../../apimachinery/field';
import { goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';
import { labelMapIssues } from '../../apimachinery/label-selector';
import { isDns1123Label } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of a node.k8s.io/v1 RuntimeClass (pkg/apis/node/validation's
 * ValidateRuntimeClass). Measured on 1.28, 1.32 and 1.36 (cluster-differential).
 */

/**
 * 1.36 reports an empty handler as missing and a toleration at `scheduling.tolerations[i]`; 1.28 and 1.32 give the
 * DNS-label message for "" and repeat the list's name (`scheduling.tolerations.tolerations[i]`, validateScheduling
 * passing its own path to ValidateTolerations, which adds it again). Measured; the versions between follow 1.32.
 */
const NEW_PATHS = 36;

/** @internal */
export function runtimeClassIssues(object: any, version: KubernetesVersion): Issue[] {
  if (!isRecord(object)) return [];
  const issues: Issue[] = [];
  const handler = typeof object.handler === 'string' ? object.handler : '';
  if (handler === '' && minorOf(version) >= NEW_PATHS) issues.push(required('handler'));
  else issues.push(...invalidValue('handler', handler, isDns1123Label(handler), version));
  // validateOverhead: the fixed pod overhead checked as a container's limits, at `overhead.limits[name]`
  if (isRecord(object.overhead) && isRecord(object.overhead.podFixed)) {
    issues.push(...resourcesIssues('overhead', { limits: object.overhead.podFixed }, version, false));
  }
  if (isRecord(object.scheduling)) {
    issues.push(...labelMapIssues(object.scheduling.nodeSelector, 'scheduling.nodeSelector', version));
    const path = minorOf(version) >= NEW_PATHS ? 'scheduling.tolerations' : 'scheduling.tolerations.tolerations';
    issues.push(...tolerationsIssues(path, object.scheduling.tolerations, version));
    issues.push(...duplicateTolerations(object.scheduling.tolerations, version));
  }
  return issues;
}

/**
 * validateTolerations' uniqueness: two tolerations alike in key, operator, value and effect (their seconds aside),
 * the later one reported whole, at `scheduling.tolerations[i]` on every version. Go prints the internal struct:
 * `%#v` up to 1.33 (the seconds as a pointer, whose address synth cannot know: `…`), JSON from 1.34.
 */
function duplicateTolerations(tolerations: unknown, version: KubernetesVersion): Issue[] {
  if (!Array.isArray(tolerations)) return [];
  const seen = new Set<string>();
  const issues: Issue[] = [];
  tolerations.forEach((raw, i) => {
    if (!isRecord(raw)) return;
    const [key, operator, value, effect] = ['key', 'operator', 'value', 'effect'].map((f) => String(raw[f] ?? ''));
    const listKey = JSON.stringify([key, operator, value, effect]);
    if (!seen.has(listKey)) {
      seen.add(listKey);
      return;
    }
    const seconds = typeof raw.tolerationSeconds === 'number' ? raw.tolerationSeconds : undefined;
    const shown = since(version, 'fieldValuesAsJson')
      ? JSON.stringify({
          Key: key,
          Operator: operator,
          Value: value,
          Effect: effect,
          TolerationSeconds: seconds ?? null,
        })
      : `core.Toleration{Key:${goQuote(key)}, Operator:${goQuote(operator)}, Value:${goQuote(value)}, Effect:${goQuote(effect)}, TolerationSeconds:(*int64)(${seconds === undefined ? 'nil' : '…'})}`;
    issues.push({ path: `scheduling.tolerations[${i}]`, message: `Duplicate value: ${shown}`, value: raw });
  });
  return issues;
}
