import { mandatoryPriorityLevelIssues } from './flowcontrol-mandatory';
import { invalidValue, isRecord, unsupportedValue } from './services-field-errors';
import { forbidden, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * The apiserver's create-time validation of a flowcontrol.apiserver.k8s.io PriorityLevelConfiguration
 * (pkg/apis/flowcontrol/validation's ValidatePriorityLevelConfiguration), on the object as v1 and v1beta3 default it:
 * a Limited level's nominalConcurrencyShares becomes 30 when absent (v1beta3: also when 0, so v1 alone may hold 0),
 * its lendablePercent 0, a queuing's queues 64, handSize 8 and queueLengthLimit 50 when 0. Measured on 1.28
 * (v1beta3), 1.32 and 1.36 (v1) (cluster-differential).
 */

const TYPES = ['Exempt', 'Limited'] as const;
const RESPONSES = ['Queue', 'Reject'] as const;
const MAX_QUEUES = 10_000_000;
/** shufflesharding.MaxHashBits. */
const MAX_HASH_BITS = 60;

/**
 * 1.36 reports an empty `type` (of the level or of its limitResponse) as missing, and words the exempt-name rule
 * `must be 'Exempt' if and only if \`name\` is 'exempt'` (measured; 1.28 and 1.32 say `Unsupported value: ""` and
 * `type must be ... name is 'exempt'`). The versions between follow 1.32.
 */
const newWording = (version: KubernetesVersion) => minorOf(version) >= 36;

/** @internal */
export function priorityLevelIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const name = isRecord(object?.metadata) ? object.metadata.name : undefined;
  const v1 = object?.apiVersion === 'flowcontrol.apiserver.k8s.io/v1';
  const withDefaults = defaulted(spec, v1);
  return [...specIssues(withDefaults, name, v1, version), ...mandatoryPriorityLevelIssues(name, withDefaults)];
}

/** ValidatePriorityLevelConfigurationSpec. */
function specIssues(spec: Record<string, any>, name: unknown, v1: boolean, version: KubernetesVersion): Issue[] {
  const type = typeof spec.type === 'string' ? spec.type : '';
  const issues: Issue[] = [];
  if (type === '' && newWording(version)) return [required('spec.type')];
  if ((TYPES as readonly string[]).includes(type) && (name === 'exempt') !== (type === 'Exempt')) {
    const detail = newWording(version)
      ? "must be 'Exempt' if and only if `name` is 'exempt'"
      : "type must be 'Exempt' if and only if name is 'exempt'";
    issues.push(...invalidValue('spec.type', type, [detail], version));
  }
  if (type === 'Exempt') {
    if (isRecord(spec.limited)) issues.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (isRecord(spec.exempt)) issues.push(...sharesIssues(spec.exempt, 'spec.exempt', true, version));
  } else if (type === 'Limited') {
    if (isRecord(spec.exempt)) issues.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!isRecord(spec.limited)) issues.push(required('spec.limited', 'must not be empty when type is Limited'));
    else issues.push(...limitedIssues(spec.limited, v1, version));
  } else {
    issues.push(unsupportedValue('spec.type', type, TYPES, version));
  }
  return issues;
}

/** nominalConcurrencyShares and lendablePercent, of an exempt or a limited level. */
function sharesIssues(
  shares: Record<string, any>,
  path: string,
  zeroAllowed: boolean,
  version: KubernetesVersion,
): Issue[] {
  const issues: Issue[] = [];
  const nominal = shares.nominalConcurrencyShares;
  if (typeof nominal === 'number') {
    if (zeroAllowed && nominal < 0) {
      issues.push(
        ...invalidValue(`${path}.nominalConcurrencyShares`, nominal, ['must be a non-negative integer'], version),
      );
    } else if (!zeroAllowed && nominal <= 0) {
      issues.push(...invalidValue(`${path}.nominalConcurrencyShares`, nominal, ['must be positive'], version));
    }
  }
  const lendable = shares.lendablePercent;
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) {
    issues.push(
      ...invalidValue(`${path}.lendablePercent`, lendable, ['must be between 0 and 100, inclusive'], version),
    );
  }
  return issues;
}

/** ValidateLimitedPriorityLevelConfiguration: shares (0 only in v1, v1beta3 defaults it to 30), borrowing, response. */
function limitedIssues(limited: Record<string, any>, v1: boolean, version: KubernetesVersion): Issue[] {
  const issues = sharesIssues(limited, 'spec.limited', v1, version);
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) {
    issues.push(
      ...invalidValue(
        'spec.limited.borrowingLimitPercent',
        borrowing,
        ['if specified, must be a non-negative integer'],
        version,
      ),
    );
  }
  const response = isRecord(limited.limitResponse) ? limited.limitResponse : {};
  const path = 'spec.limited.limitResponse';
  const type = typeof response.type === 'string' ? response.type : '';
  if (type === 'Reject') {
    if (isRecord(response.queuing)) {
      issues.push(forbidden(`${path}.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
    }
  } else if (type === 'Queue') {
    if (!isRecord(response.queuing)) {
      issues.push(required(`${path}.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
    } else {
      issues.push(...queuingIssues(response.queuing, `${path}.queuing`, version));
    }
  } else if (type === '' && newWording(version)) {
    issues.push(required(`${path}.type`));
  } else {
    issues.push(unsupportedValue(`${path}.type`, type, RESPONSES, version));
  }
  return issues;
}

/** ValidatePriorityLevelQueuingConfiguration, on the defaulted queuing. */
function queuingIssues(queuing: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const orDefault = (v: unknown, d: number) => (typeof v === 'number' && v !== 0 ? v : d);
  const limit = orDefault(queuing.queueLengthLimit, 50);
  const queues = orDefault(queuing.queues, 64);
  const hand = orDefault(queuing.handSize, 8);
  const issues: Issue[] = [];
  if (limit <= 0) issues.push(...invalidValue(`${path}.queueLengthLimit`, limit, ['must be positive'], version));
  if (queues <= 0) {
    issues.push(...invalidValue(`${path}.queues`, queues, ['must be positive'], version));
  } else if (queues > MAX_QUEUES) {
    issues.push(...invalidValue(`${path}.queues`, queues, [`must not be greater than ${MAX_QUEUES}`], version));
  }
  let handProblem: string | undefined;
  if (hand <= 0) {
    handProblem = 'must be positive';
  } else if (hand > queues) {
    handProblem = `should not be greater than queues (${queues})`;
  } else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS) {
    // shufflesharding.RequiredEntropyBits
    handProblem = `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`;
  }
  if (handProblem) issues.push(...invalidValue(`${path}.handSize`, hand, [handProblem], version));
  return issues;
}

/** The spec with the defaults the mandatory specs were stored with (v1 and v1beta3 SetDefaults). */
function defaulted(spec: Record<string, any>, v1: boolean): Record<string, any> {
  if (!isRecord(spec.limited)) return spec;
  const nominal = spec.limited.nominalConcurrencyShares;
  const missing = typeof nominal !== 'number' || (!v1 && nominal === 0);
  return { ...spec, limited: { ...spec.limited, nominalConcurrencyShares: missing ? 30 : nominal } };
}
