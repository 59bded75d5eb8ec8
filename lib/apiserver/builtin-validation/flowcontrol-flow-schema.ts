import { mandatoryFlowSchemaIssues } from './flowcontrol-mandatory';
import { goStringList, invalidValue, isRecord, recordsOf, stringsOf, unsupportedValue } from './services-field-errors';
import { forbidden, required } from '../../apimachinery/field';
import { goJson } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label, isDns1123Subdomain } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of a flowcontrol.apiserver.k8s.io FlowSchema, v1 (1.29 on) and v1beta3
 * (to 1.31) alike (pkg/apis/flowcontrol/validation's ValidateFlowSchema and its helpers), on the object as defaulted
 * (a matchingPrecedence of 0 becomes 1000). Measured on 1.28 (v1beta3), 1.32 and 1.36 (v1) (cluster-differential).
 * Whether the referenced priority level exists is not checked (the apiserver does not either: the flow schema then
 * reports it in its status).
 */

const MAX_MATCHING_PRECEDENCE = 10000;
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'] as const;
/** supportedVerbs, sorted as the apiserver lists them. */
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'] as const;
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'] as const;
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

/** @internal */
export function flowSchemaIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const name = isRecord(object?.metadata) ? object.metadata.name : undefined;
  const issues: Issue[] = [...specIssues(name, spec, version)];
  issues.push(...mandatoryFlowSchemaIssues(name, { ...spec, matchingPrecedence: precedenceOf(spec) }));
  return issues;
}

/** SetDefaults_FlowSchemaSpec: 0 (or absent) is 1000. */
function precedenceOf(spec: Record<string, any>): number {
  return typeof spec.matchingPrecedence === 'number' && spec.matchingPrecedence !== 0 ? spec.matchingPrecedence : 1000;
}

/** ValidateFlowSchemaSpec. */
function specIssues(name: unknown, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const precedence = precedenceOf(spec);
  const path = 'spec.matchingPrecedence';
  if (precedence <= 0) issues.push(...invalidValue(path, precedence, ['must be a positive value'], version));
  if (precedence > MAX_MATCHING_PRECEDENCE) {
    issues.push(...invalidValue(path, precedence, [`must not be greater than ${MAX_MATCHING_PRECEDENCE}`], version));
  }
  if (precedence === 1 && name !== 'exempt') {
    issues.push(
      ...invalidValue(path, precedence, ["only the schema named 'exempt' may have matchingPrecedence 1"], version),
    );
  }
  if (isRecord(spec.distinguisherMethod)) {
    const type = typeof spec.distinguisherMethod.type === 'string' ? spec.distinguisherMethod.type : '';
    if (!(DISTINGUISHER_METHODS as readonly string[]).includes(type)) {
      // the apiserver shows the whole FlowDistinguisherMethod struct
      const shown = since(version, 'fieldValuesAsJson')
        ? `{"Type":${goJson(type)}}`
        : `flowcontrol.FlowDistinguisherMethod{Type:${JSON.stringify(type)}}`;
      issues.push({
        path: 'spec.distinguisherMethod.type',
        message: `Unsupported value: ${shown}: supported values: ${DISTINGUISHER_METHODS.map((m) => JSON.stringify(m)).join(', ')}`,
        value: type,
      });
    }
  }
  const level = isRecord(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration.name : undefined;
  if (typeof level === 'string' && level !== '') {
    issues.push(...invalidValue('spec.priorityLevelConfiguration.name', level, isDns1123Subdomain(level), version));
  } else {
    issues.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  }
  recordsOf(spec.rules).forEach((rule, i) => issues.push(...ruleIssues(rule, `spec.rules[${i}]`, version)));
  return issues;
}

/** ValidateFlowSchemaPolicyRulesWithSubjects. */
function ruleIssues(rule: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const subjects = recordsOf(rule.subjects);
  if (subjects.length === 0) {
    issues.push(required(`${path}.subjects`, 'subjects must contain at least one value'));
  }
  subjects.forEach((s, i) => issues.push(...subjectIssues(s, `${path}.subjects[${i}]`, version)));
  const resourceRules = recordsOf(rule.resourceRules);
  const nonResourceRules = recordsOf(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    issues.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  resourceRules.forEach((r, i) => issues.push(...resourceRuleIssues(r, `${path}.resourceRules[${i}]`, version)));
  nonResourceRules.forEach((r, i) =>
    issues.push(...nonResourceRuleIssues(r, `${path}.nonResourceRules[${i}]`, version)),
  );
  return issues;
}

const SUBJECT_FIELDS = {
  ServiceAccount: "serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
  User: "user is forbidden when subject kind is not 'User'",
  Group: "group is forbidden when subject kind is not 'Group'",
} as const;
const fieldOf = (kind: keyof typeof SUBJECT_FIELDS) =>
  kind === 'ServiceAccount' ? 'serviceAccount' : kind === 'User' ? 'user' : 'group';

/** ValidateFlowSchemaSubject: the kind's own field, required and valid; the other two absent. */
function subjectIssues(subject: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const kind = subject.kind;
  if (kind !== 'ServiceAccount' && kind !== 'User' && kind !== 'Group') {
    return [unsupportedValue(`${path}.kind`, typeof kind === 'string' ? kind : '', SUBJECT_KINDS, version)];
  }
  const own = fieldOf(kind);
  const value = subject[own];
  const issues: Issue[] = [];
  if (!isRecord(value)) {
    issues.push(required(`${path}.${own}`, `${own} is required when subject kind is '${kind}'`));
  } else if (kind === 'ServiceAccount') {
    issues.push(...serviceAccountIssues(value, `${path}.serviceAccount`, version));
  } else if (typeof value.name !== 'string' || value.name === '') {
    issues.push(required(`${path}.${own}.name`));
  }
  for (const other of ['ServiceAccount', 'User', 'Group'] as const) {
    if (other !== kind && isRecord(subject[fieldOf(other)])) {
      issues.push(forbidden(`${path}.${fieldOf(other)}`, SUBJECT_FIELDS[other]));
    }
  }
  return issues;
}

/** ValidateServiceAccountSubject: a name (or `*`) and a namespace. */
function serviceAccountIssues(sa: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const name = typeof sa.name === 'string' ? sa.name : '';
  if (name === '') issues.push(required(`${path}.name`));
  else if (name !== '*') issues.push(...invalidValue(`${path}.name`, name, isDns1123Subdomain(name), version));
  const namespace = typeof sa.namespace === 'string' ? sa.namespace : '';
  if (namespace === '') issues.push(required(`${path}.namespace`, 'must specify namespace for service account'));
  else issues.push(...invalidValue(`${path}.namespace`, namespace, isDns1123Label(namespace), version));
  return issues;
}

/** The verbs of either kind of rule: one at least, `*` alone, else only the supported ones. */
function verbIssues(verbs: string[], path: string, version: KubernetesVersion): Issue[] {
  if (verbs.length === 0) return [required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) {
    return verbs.length > 1
      ? [invalidList(path, verbs, "if '*' is present, must not specify other verbs", version)]
      : [];
  }
  if (verbs.every((v) => (VERBS as readonly string[]).includes(v))) return [];
  const supported = VERBS.map((v) => JSON.stringify(v)).join(', ');
  return [
    {
      path,
      message: `Unsupported value: ${goStringList(verbs, version)}: supported values: ${supported}`,
      value: verbs,
    },
  ];
}

function invalidList(path: string, values: string[], detail: string, version: KubernetesVersion): Issue {
  return { path, message: `Invalid value: ${goStringList(values, version)}: ${detail}`, value: values };
}

/** ValidateFlowSchemaResourcePolicyRule. */
function resourceRuleIssues(rule: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const strings = (v: unknown) => stringsOf(v).map(String);
  const issues = verbIssues(strings(rule.verbs), `${path}.verbs`, version);
  const lists = [
    ['apiGroups', 'resource rules must supply at least one api group', 'api groups'],
    ['resources', 'resource rules must supply at least one resource', 'resources'],
  ] as const;
  for (const [field, missing, noun] of lists) {
    const values = strings(rule[field]);
    if (values.length === 0) {
      issues.push(required(`${path}.${field}`, missing));
    } else if (values.length > 1 && values.includes('*')) {
      issues.push(
        invalidList(`${path}.${field}`, values, `if '*' is present, must not specify other ${noun}`, version),
      );
    }
  }
  const namespaces = strings(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    issues.push(
      required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'),
    );
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) {
      issues.push(
        invalidList(`${path}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces", version),
      );
    }
  } else {
    namespaces.forEach((ns, i) =>
      issues.push(
        ...invalidValue(
          `${path}.namespaces[${i}]`,
          ns,
          isDns1123Label(ns).map((m) => NS_INTRO + m),
          version,
        ),
      ),
    );
  }
  return issues;
}

/** ValidateFlowSchemaNonResourcePolicyRule. */
function nonResourceRuleIssues(rule: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const issues = verbIssues(stringsOf(rule.verbs).map(String), `${path}.verbs`, version);
  const urls = stringsOf(rule.nonResourceURLs).map(String);
  if (urls.length === 0) {
    issues.push(required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  } else if (urls.includes('*')) {
    if (urls.length > 1) {
      issues.push(
        invalidList(
          `${path}.nonResourceURLs`,
          urls,
          "if '*' is present, must not specify other non-resource URLs",
          version,
        ),
      );
    }
  } else {
    urls.forEach((url, i) => {
      const problem = nonResourceUrlProblem(url);
      if (problem) issues.push(...invalidValue(`${path}.nonResourceURLs[${i}]`, url, [problem], version));
    });
  }
  return issues;
}

/** ValidateNonResourceURLPath: the first rule a path breaks. */
function nonResourceUrlProblem(url: string): string | undefined {
  if (url === '') return 'must not be empty';
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return 'must start with slash';
  if (url.includes(' ')) return 'must not contain white-space';
  if (url.includes('//')) return 'must not contain double slash';
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}
