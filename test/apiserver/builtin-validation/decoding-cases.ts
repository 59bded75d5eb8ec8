/**
 * Built-in objects for the strict-decoding tests: a valid base of each kind and mutations of one field (unknown
 * fields at several depths, values of the wrong JSON type, bad base64, quantities, int-or-strings, timestamps, null),
 * each with what the apiserver's decoding says of it when it refuses it (the message after `<Kind> in version "<v>"
 * cannot be handled as a <Kind>: `), measured on 1.28.15, 1.32.13 and 1.36.3 by decoding-differential.test.ts.
 */
export interface DecodingCase {
  readonly name: string;
  readonly object: any;
  /** The decoding error by version (`all` for every one); undefined where the decoding accepts it. */
  readonly refused?: { readonly [version: string]: string };
  /**
   * The server's Go type where ours names the underlying one (a named type the OpenAPI does not name): the server's
   * message is ours with `of type <ours>` replaced.
   */
  readonly namedType?: { readonly ours: string; readonly server: string };
  /** Go's time.Parse message goes on after the layout; ours stops there: the server's starts with ours. */
  readonly prefixOnly?: boolean;
}

const CM = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { app: 'a' } }, data: { k: 'v' } };
const SECRET = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { k: 'YWJj' } };
const SVC = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'svc' },
  spec: {
    selector: { app: 'a' },
    ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
    sessionAffinity: 'ClientIP',
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
  },
};
const DEPLOY = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    template: {
      metadata: { labels: { app: 'a', tier: 'web' } },
      spec: {
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name: 'c',
            image: 'nginx',
            args: ['--port', '8080'],
            env: [{ name: 'A', value: 'b' }],
            ports: [{ containerPort: 8080, name: 'http' }],
            resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 1, memory: '128Mi' } },
            livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 10 },
          },
        ],
      },
    },
  },
};
const ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'r' },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
};
const PDB = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'p' },
  spec: { minAvailable: '50%', selector: { matchLabels: { app: 'a' } } },
};
const LEASE = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'l' },
  spec: { holderIdentity: 'a' },
};
const JOB = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j' },
  spec: {
    backoffLimit: 3,
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
  },
};

/** A copy of `base` with the value at `path` (`spec.ports[0].port`) set (`undefined`: deleted). */
export function withField(base: any, path: string, value: unknown): any {
  const copy = JSON.parse(JSON.stringify(base));
  const keys = path.split(/\.|\[(\d+)\]/).filter((k) => k !== undefined && k !== '');
  let at = copy;
  for (const k of keys.slice(0, -1)) at = at[k] ??= {};
  const last = keys[keys.length - 1];
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

const all = (message: string) => ({ all: message });
const typeError = (what: string, field: string, type: string) =>
  all(`json: cannot unmarshal ${what} into Go struct field ${field} of type ${type}`);
const unknown = (...fields: string[]) =>
  all(`strict decoding error: ${fields.map((f) => `unknown field "${f}"`).join(', ')}`);
const QUANTITY = all("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
const C0 = 'spec.template.spec.containers[0]';

export const DECODING_CASES: readonly DecodingCase[] = [
  // the valid bases
  { name: 'ConfigMap', object: CM },
  { name: 'Secret', object: SECRET },
  { name: 'Service', object: SVC },
  { name: 'Deployment', object: DEPLOY },
  { name: 'Role', object: ROLE },
  { name: 'PodDisruptionBudget', object: PDB },
  { name: 'Job', object: JOB },

  // unknown fields, at every depth, all of them named in document order
  { name: 'ConfigMap: top-level', object: withField(CM, 'foo', 1), refused: unknown('foo') },
  { name: 'ConfigMap: metadata', object: withField(CM, 'metadata.foo', 'x'), refused: unknown('metadata.foo') },
  { name: 'ConfigMap: case-sensitive', object: withField(CM, 'Data', { a: 'b' }), refused: unknown('Data') },
  { name: 'ConfigMap: metadata.Name', object: withField(CM, 'metadata.Name', 'x'), refused: unknown('metadata.Name') },
  { name: 'ConfigMap: any key of data', object: withField(CM, 'data.foo', 'x') },
  { name: 'ConfigMap: any key of labels', object: withField(CM, 'metadata.labels.foo', 'x') },
  { name: 'Service: spec', object: withField(SVC, 'spec.foo', 1), refused: unknown('spec.foo') },
  {
    name: 'Service: a port',
    object: withField(SVC, 'spec.ports[0].nodeport', 30000),
    refused: unknown('spec.ports[0].nodeport'),
  },
  {
    name: 'Service: three deep',
    object: withField(SVC, 'spec.sessionAffinityConfig.clientIP.timeout', 5),
    refused: unknown('spec.sessionAffinityConfig.clientIP.timeout'),
  },
  {
    name: 'Service: two, in document order',
    object: withField(withField(SVC, 'spec.ports[0].foo', 1), 'spec.bar', 2),
    refused: unknown('spec.ports[0].foo', 'spec.bar'),
  },
  {
    name: 'Service: status',
    object: withField(SVC, 'status.loadBalancer.foo', 1),
    refused: unknown('status.loadBalancer.foo'),
  },
  { name: 'Deployment: a container', object: withField(DEPLOY, `${C0}.foo`, 1), refused: unknown(`${C0}.foo`) },
  {
    name: 'Deployment: container resources',
    object: withField(DEPLOY, `${C0}.resources.limit`, { cpu: 1 }),
    refused: unknown(`${C0}.resources.limit`),
  },
  {
    name: 'Deployment: pod template metadata',
    object: withField(DEPLOY, 'spec.template.metadata.label', { a: 'b' }),
    refused: unknown('spec.template.metadata.label'),
  },
  {
    name: 'Deployment: rolling update',
    object: withField(DEPLOY, 'spec.strategy.rollingUpdate.maxsurge', 1),
    refused: unknown('spec.strategy.rollingUpdate.maxsurge'),
  },
  {
    name: 'Deployment: a match expression',
    object: withField(DEPLOY, 'spec.selector.matchExpressions[0].value', 'web'),
    refused: unknown('spec.selector.matchExpressions[0].value'),
  },
  {
    name: 'Deployment: pod spec and probe',
    object: withField(withField(DEPLOY, 'spec.template.spec.restart', 'Always'), `${C0}.livenessProbe.period`, 3),
    refused: unknown(`${C0}.livenessProbe.period`, 'spec.template.spec.restart'),
  },
  { name: 'Role: a rule', object: withField(ROLE, 'rules[0].verb', ['get']), refused: unknown('rules[0].verb') },
  { name: 'Role: top-level typo', object: withField(ROLE, 'rule', []), refused: unknown('rule') },
  { name: 'PDB: spec', object: withField(PDB, 'spec.minAvailble', 1), refused: unknown('spec.minAvailble') },
  { name: 'Secret: top-level', object: withField(SECRET, 'stringdata', {}), refused: unknown('stringdata') },
  { name: 'Job: spec', object: withField(JOB, 'spec.backoff', 1), refused: unknown('spec.backoff') },

  // fields some versions lack: unknown there, like a typo
  {
    name: 'Service: spec.trafficDistribution (1.30 and newer)',
    object: withField(SVC, 'spec.trafficDistribution', 'PreferClose'),
    refused: { '1.28': 'strict decoding error: unknown field "spec.trafficDistribution"' },
  },
  {
    name: 'Job: spec.managedBy (1.30 and newer)',
    object: withField(JOB, 'spec.managedBy', 'kubernetes.io/job-controller'),
    refused: { '1.28': 'strict decoding error: unknown field "spec.managedBy"' },
  },
  {
    name: 'Deployment: a pod spec field newer than 1.32 (hostnameOverride)',
    object: withField(DEPLOY, 'spec.template.spec.hostnameOverride', 'h'),
    refused: {
      '1.28': 'strict decoding error: unknown field "spec.template.spec.hostnameOverride"',
      '1.32': 'strict decoding error: unknown field "spec.template.spec.hostnameOverride"',
    },
  },
  {
    name: 'Deployment: a container field newer than 1.32 (lifecycle.stopSignal)',
    object: withField(DEPLOY, `${C0}.lifecycle`, { stopSignal: 'SIGTERM' }),
    refused: {
      '1.28': `strict decoding error: unknown field "${C0}.lifecycle.stopSignal"`,
      '1.32': `strict decoding error: unknown field "${C0}.lifecycle.stopSignal"`,
    },
  },

  // values of the wrong JSON type: the first in document order, alone
  {
    name: 'ConfigMap: a number in data',
    object: withField(CM, 'data.k', 1),
    refused: typeError('number', 'ConfigMap.data', 'string'),
  },
  {
    name: 'ConfigMap: a bool in data',
    object: withField(CM, 'data.k', true),
    refused: typeError('bool', 'ConfigMap.data', 'string'),
  },
  {
    name: 'ConfigMap: data a list',
    object: withField(CM, 'data', ['a']),
    refused: typeError('array', 'ConfigMap.data', 'map[string]string'),
  },
  {
    name: 'ConfigMap: immutable a string',
    object: withField(CM, 'immutable', 'true'),
    refused: typeError('string', 'ConfigMap.immutable', 'bool'),
  },
  {
    name: 'ConfigMap: a number as a label value',
    object: withField(CM, 'metadata.labels.app', 5),
    refused: typeError('number', 'ObjectMeta.metadata.labels', 'string'),
  },
  {
    name: 'ConfigMap: name a number',
    object: withField(CM, 'metadata.name', 5),
    refused: typeError('number', 'ObjectMeta.metadata.name', 'string'),
  },
  {
    name: 'ConfigMap: metadata a string',
    object: withField(CM, 'metadata', 'cm'),
    refused: typeError('string', 'ConfigMap.metadata', 'v1.ObjectMeta'),
  },
  {
    name: 'ConfigMap: a type error before an unknown field wins',
    object: withField(withField(CM, 'foo', 1), 'data', { a: 1 }),
    refused: typeError('number', 'ConfigMap.data', 'string'),
  },
  {
    name: 'Service: port a string',
    object: withField(SVC, 'spec.ports[0].port', 'abc'),
    refused: typeError('string', 'ServicePort.spec.ports.port', 'int32'),
  },
  {
    name: 'Service: port a numeric string',
    object: withField(SVC, 'spec.ports[0].port', '80'),
    refused: typeError('string', 'ServicePort.spec.ports.port', 'int32'),
  },
  {
    name: 'Service: port a fraction',
    object: withField(SVC, 'spec.ports[0].port', 80.5),
    refused: typeError('number 80.5', 'ServicePort.spec.ports.port', 'int32'),
  },
  {
    name: 'Service: port beyond int32',
    object: withField(SVC, 'spec.ports[0].port', 2147483648),
    refused: typeError('number 2147483648', 'ServicePort.spec.ports.port', 'int32'),
  },
  {
    name: 'Service: port below int32',
    object: withField(SVC, 'spec.ports[0].port', -2147483649),
    refused: typeError('number -2147483649', 'ServicePort.spec.ports.port', 'int32'),
  },
  {
    name: 'Service: port the largest int32 (validation refuses it, decoding does not)',
    object: withField(SVC, 'spec.ports[0].port', 2147483647),
  },
  {
    name: 'Service: ports an object',
    object: withField(SVC, 'spec.ports', { port: 80 }),
    refused: typeError('object', 'ServiceSpec.spec.ports', '[]v1.ServicePort'),
  },
  {
    name: 'Service: selector a list',
    object: withField(SVC, 'spec.selector', ['a']),
    refused: typeError('array', 'ServiceSpec.spec.selector', 'map[string]string'),
  },
  {
    name: 'Service: the first of two type errors',
    object: withField(withField(SVC, 'spec.ports[0].port', 'x'), 'spec.ports[0].name', 5),
    refused: typeError('number', 'ServicePort.spec.ports.name', 'string'),
  },
  {
    name: 'Service: type a number (a named string type)',
    object: withField(SVC, 'spec.type', 5),
    refused: typeError('number', 'ServiceSpec.spec.type', 'string'),
    namedType: { ours: 'string', server: 'v1.ServiceType' },
  },
  {
    name: 'Service: timeoutSeconds a string',
    object: withField(SVC, 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', '60'),
    refused: typeError('string', 'ClientIPConfig.spec.sessionAffinityConfig.clientIP.timeoutSeconds', 'int32'),
  },
  // int-or-string: a string, or an int32; anything else stops the decoding
  { name: 'Service: targetPort a name', object: withField(SVC, 'spec.ports[0].targetPort', 'http') },
  {
    name: 'Service: targetPort a fraction',
    object: withField(SVC, 'spec.ports[0].targetPort', 1.5),
    refused: typeError('number 1.5', 'ServicePort.spec.ports.targetPort', 'int32'),
  },
  {
    name: 'Service: targetPort a bool',
    object: withField(SVC, 'spec.ports[0].targetPort', true),
    refused: typeError('bool', 'ServicePort.spec.ports.targetPort', 'int32'),
  },
  {
    name: 'Service: targetPort an object',
    object: withField(SVC, 'spec.ports[0].targetPort', {}),
    refused: typeError('object', 'ServicePort.spec.ports.targetPort', 'int32'),
  },
  {
    name: 'Service: targetPort beyond int32',
    object: withField(SVC, 'spec.ports[0].targetPort', 4294967296),
    refused: typeError('number 4294967296', 'ServicePort.spec.ports.targetPort', 'int32'),
  },
  { name: 'PDB: minAvailable an int', object: withField(PDB, 'spec.minAvailable', 1) },
  {
    name: 'PDB: minAvailable a fraction',
    object: withField(PDB, 'spec.minAvailable', 0.5),
    refused: typeError('number 0.5', 'PodDisruptionBudgetSpec.spec.minAvailable', 'int32'),
  },
  {
    name: 'PDB: maxUnavailable a list',
    object: withField(withField(PDB, 'spec.minAvailable', undefined), 'spec.maxUnavailable', [1]),
    refused: typeError('array', 'PodDisruptionBudgetSpec.spec.maxUnavailable', 'int32'),
  },
  {
    name: 'Deployment: replicas a string',
    object: withField(DEPLOY, 'spec.replicas', '3'),
    refused: typeError('string', 'DeploymentSpec.spec.replicas', 'int32'),
  },
  {
    name: 'Deployment: maxSurge a bool',
    object: withField(DEPLOY, 'spec.strategy.rollingUpdate.maxSurge', false),
    refused: typeError('bool', 'RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge', 'int32'),
  },
  {
    name: 'Deployment: containers an object',
    object: withField(DEPLOY, 'spec.template.spec.containers', { name: 'c' }),
    refused: typeError('object', 'PodSpec.spec.template.spec.containers', '[]v1.Container'),
  },
  {
    name: 'Deployment: args a string',
    object: withField(DEPLOY, `${C0}.args`, '--port 8080'),
    refused: typeError('string', 'Container.spec.template.spec.containers.args', '[]string'),
  },
  {
    name: 'Deployment: an arg a number',
    object: withField(DEPLOY, `${C0}.args[1]`, 8080),
    refused: typeError('number', 'Container.spec.template.spec.containers.args', 'string'),
  },
  {
    name: 'Deployment: an env value a number',
    object: withField(DEPLOY, `${C0}.env[0].value`, 1),
    refused: typeError('number', 'EnvVar.spec.template.spec.containers.env.value', 'string'),
  },
  {
    name: 'Deployment: containerPort a string',
    object: withField(DEPLOY, `${C0}.ports[0].containerPort`, '8080'),
    refused: typeError('string', 'ContainerPort.spec.template.spec.containers.ports.containerPort', 'int32'),
  },
  {
    name: 'Deployment: terminationGracePeriodSeconds (int64) a string',
    object: withField(DEPLOY, 'spec.template.spec.terminationGracePeriodSeconds', '30'),
    refused: typeError('string', 'PodSpec.spec.template.spec.terminationGracePeriodSeconds', 'int64'),
  },
  {
    name: 'Deployment: terminationGracePeriodSeconds beyond int32 (an int64)',
    object: withField(DEPLOY, 'spec.template.spec.terminationGracePeriodSeconds', 4294967296),
  },
  // fields of an embedded Go struct (Probe's ProbeHandler, Volume's VolumeSource...): from 1.33 (Go 1.24) Go names it
  {
    name: 'Deployment: a probe port a fraction',
    object: withField(DEPLOY, `${C0}.livenessProbe.httpGet.port`, 80.5),
    refused: {
      '1.28':
        'json: cannot unmarshal number 80.5 into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
      '1.32':
        'json: cannot unmarshal number 80.5 into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
      '1.36':
        'json: cannot unmarshal number 80.5 into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.ProbeHandler.httpGet.port of type int32',
    },
  },
  {
    name: 'Deployment: a probe httpGet a string',
    object: withField(DEPLOY, `${C0}.livenessProbe.httpGet`, '/'),
    refused: {
      '1.28':
        'json: cannot unmarshal string into Go struct field Probe.spec.template.spec.containers.livenessProbe.httpGet of type v1.HTTPGetAction',
      '1.32':
        'json: cannot unmarshal string into Go struct field Probe.spec.template.spec.containers.livenessProbe.httpGet of type v1.HTTPGetAction',
      '1.36':
        'json: cannot unmarshal string into Go struct field Probe.spec.template.spec.containers.livenessProbe.ProbeHandler.httpGet of type v1.HTTPGetAction',
    },
  },
  {
    name: 'Deployment: a volume defaultMode a string',
    object: withField(DEPLOY, 'spec.template.spec.volumes', [
      { name: 'v', configMap: { name: 'cm', defaultMode: '420' } },
    ]),
    refused: {
      '1.28':
        'json: cannot unmarshal string into Go struct field ConfigMapVolumeSource.spec.template.spec.volumes.configMap.defaultMode of type int32',
      '1.32':
        'json: cannot unmarshal string into Go struct field ConfigMapVolumeSource.spec.template.spec.volumes.configMap.defaultMode of type int32',
      '1.36':
        'json: cannot unmarshal string into Go struct field ConfigMapVolumeSource.spec.template.spec.volumes.VolumeSource.configMap.defaultMode of type int32',
    },
  },
  {
    name: 'Deployment: a volume configMap a string',
    object: withField(DEPLOY, 'spec.template.spec.volumes', [{ name: 'v', configMap: 'cm' }]),
    refused: {
      '1.28':
        'json: cannot unmarshal string into Go struct field Volume.spec.template.spec.volumes.configMap of type v1.ConfigMapVolumeSource',
      '1.32':
        'json: cannot unmarshal string into Go struct field Volume.spec.template.spec.volumes.configMap of type v1.ConfigMapVolumeSource',
      '1.36':
        'json: cannot unmarshal string into Go struct field Volume.spec.template.spec.volumes.VolumeSource.configMap of type v1.ConfigMapVolumeSource',
    },
  },
  {
    name: 'Deployment: a volume name a number',
    object: withField(DEPLOY, 'spec.template.spec.volumes', [{ name: 5, emptyDir: {} }]),
    refused: typeError('number', 'Volume.spec.template.spec.volumes.name', 'string'),
  },
  {
    name: 'Ingress: http a list',
    object: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i' },
      spec: { rules: [{ host: 'a.example.com', http: [] }] },
    },
    refused: {
      '1.28':
        'json: cannot unmarshal array into Go struct field IngressRule.spec.rules.http of type v1.HTTPIngressRuleValue',
      '1.32':
        'json: cannot unmarshal array into Go struct field IngressRule.spec.rules.http of type v1.HTTPIngressRuleValue',
      '1.36':
        'json: cannot unmarshal array into Go struct field IngressRule.spec.rules.IngressRuleValue.http of type v1.HTTPIngressRuleValue',
    },
  },
  {
    name: 'ValidatingWebhookConfiguration: a rule apiGroups a string',
    object: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [
        {
          name: 'w.example.com',
          clientConfig: { url: 'https://example.com' },
          rules: [{ operations: ['CREATE'], apiGroups: 'apps', apiVersions: ['v1'], resources: ['deployments'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
    refused: {
      '1.28':
        'json: cannot unmarshal string into Go struct field RuleWithOperations.webhooks.rules.apiGroups of type []string',
      '1.32':
        'json: cannot unmarshal string into Go struct field RuleWithOperations.webhooks.rules.apiGroups of type []string',
      '1.36':
        'json: cannot unmarshal string into Go struct field RuleWithOperations.webhooks.rules.Rule.apiGroups of type []string',
    },
  },
  // quantities: their own decoding, whose error stops it
  { name: 'Deployment: cpu limit a number', object: withField(DEPLOY, `${C0}.resources.limits.cpu`, 0.5) },
  { name: 'Deployment: cpu limit an exponent', object: withField(DEPLOY, `${C0}.resources.limits.cpu`, '1e3') },
  {
    name: 'Deployment: cpu limit an exponent and a suffix',
    object: withField(DEPLOY, `${C0}.resources.limits.cpu`, '1e3m'),
    refused: QUANTITY,
  },
  {
    name: 'Deployment: cpu limit not a quantity',
    object: withField(DEPLOY, `${C0}.resources.limits.cpu`, 'abc'),
    refused: QUANTITY,
  },
  {
    name: 'Deployment: cpu limit an object',
    object: withField(DEPLOY, `${C0}.resources.limits.cpu`, {}),
    refused: QUANTITY,
  },
  {
    name: 'Deployment: cpu limit a bool',
    object: withField(DEPLOY, `${C0}.resources.limits.cpu`, true),
    refused: QUANTITY,
  },
  {
    name: 'Deployment: memory empty',
    object: withField(DEPLOY, `${C0}.resources.requests.memory`, ''),
    refused: QUANTITY,
  },
  {
    name: 'Deployment: memory a bad suffix',
    object: withField(DEPLOY, `${C0}.resources.requests.memory`, '64Mb'),
    refused: all("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
  },
  {
    name: 'Deployment: memory an unknown suffix',
    object: withField(DEPLOY, `${C0}.resources.requests.memory`, '64Mi5'),
    refused: all("unable to parse quantity's suffix"),
  },
  {
    name: "Deployment: a quantity error after a type error: the quantity's",
    object: withField(withField(DEPLOY, 'spec.replicas', '3'), `${C0}.resources.limits.cpu`, 'abc'),
    refused: QUANTITY,
  },
  // base64 of byte fields
  {
    name: 'Secret: data not base64',
    object: withField(SECRET, 'data.k', 'not base64!'),
    refused: all('illegal base64 data at input byte 3'),
  },
  {
    name: 'Secret: data unpadded',
    object: withField(SECRET, 'data.k', 'YWJjZA'),
    refused: all('illegal base64 data at input byte 4'),
  },
  {
    name: 'Secret: data url-safe alphabet',
    object: withField(SECRET, 'data.k', 'ab-_'),
    refused: all('illegal base64 data at input byte 2'),
  },
  { name: 'Secret: data padded', object: withField(SECRET, 'data.k', 'YWJjZA==') },
  { name: 'Secret: data with a newline', object: withField(SECRET, 'data.k', 'YWJj\nZA==') },
  { name: 'Secret: data empty', object: withField(SECRET, 'data.k', '') },
  {
    name: 'Secret: data trailing garbage',
    object: withField(SECRET, 'data.k', 'YWJjZA==YQ=='),
    refused: all('illegal base64 data at input byte 8'),
  },
  {
    name: 'Secret: data a number',
    object: withField(SECRET, 'data.k', 5),
    refused: typeError('number', 'Secret.data', '[]uint8'),
  },
  {
    name: 'Secret: stringData a number',
    object: withField(SECRET, 'stringData', { a: 1 }),
    refused: typeError('number', 'Secret.stringData', 'string'),
  },
  // timestamps
  {
    name: 'ConfigMap: creationTimestamp RFC 3339',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T03:04:05Z'),
  },
  {
    name: 'ConfigMap: creationTimestamp not a time',
    object: withField(CM, 'metadata.creationTimestamp', 'yesterday'),
    refused: all('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00"'),
    prefixOnly: true,
  },
  {
    name: 'ConfigMap: creationTimestamp a date',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02'),
    refused: all('parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00"'),
    prefixOnly: true,
  },
  {
    name: 'ConfigMap: creationTimestamp a number',
    object: withField(CM, 'metadata.creationTimestamp', 1700000000),
    refused: typeError('number', 'ObjectMeta.metadata.creationTimestamp', 'string'),
  },
  // Go's time.Parse: its range errors, and what its generic parser takes beyond RFC 3339
  {
    name: 'ConfigMap: creationTimestamp in month 13',
    object: withField(CM, 'metadata.creationTimestamp', '2024-13-02T03:04:05Z'),
    refused: all('parsing time "2024-13-02T03:04:05Z": month out of range'),
  },
  {
    name: 'ConfigMap: creationTimestamp on February 30',
    object: withField(CM, 'metadata.creationTimestamp', '2024-02-30T03:04:05Z'),
    refused: all('parsing time "2024-02-30T03:04:05Z": day out of range'),
  },
  {
    name: 'ConfigMap: creationTimestamp on February 29 of a leap year',
    object: withField(CM, 'metadata.creationTimestamp', '2024-02-29T03:04:05Z'),
  },
  {
    name: 'ConfigMap: creationTimestamp at hour 24',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T24:04:05Z'),
    refused: all('parsing time "2024-01-02T24:04:05Z": hour out of range'),
  },
  {
    name: 'ConfigMap: creationTimestamp at second 60',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T03:04:60Z'),
    refused: all('parsing time "2024-01-02T03:04:60Z": second out of range'),
  },
  {
    name: 'ConfigMap: creationTimestamp with a one-digit hour',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T3:04:05Z'),
  },
  {
    name: 'ConfigMap: creationTimestamp with a comma before its fraction',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T03:04:05,5Z'),
  },
  {
    name: 'ConfigMap: creationTimestamp with an offset of 24 hours',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T03:04:05+24:00'),
  },
  {
    name: 'ConfigMap: creationTimestamp with an offset of 25 hours',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T03:04:05+25:00'),
    refused: all('parsing time "2024-01-02T03:04:05+25:00": time zone offset hour out of range'),
  },
  {
    name: 'ConfigMap: creationTimestamp with text after it',
    object: withField(CM, 'metadata.creationTimestamp', '2024-01-02T03:04:05Zx'),
    refused: all('parsing time "2024-01-02T03:04:05Zx": extra text: "x"'),
  },
  // metav1.MicroTime: RFC 3339 with six digits of fraction (found by the additions differential)
  {
    name: 'Lease: renewTime with microseconds',
    object: withField(LEASE, 'spec.renewTime', '2026-01-01T00:00:00.000000Z'),
  },
  {
    name: 'Lease: renewTime with microseconds and an offset',
    object: withField(LEASE, 'spec.renewTime', '2026-01-01T00:00:00.123456+02:00'),
  },
  {
    name: 'Lease: renewTime without a fraction',
    object: withField(LEASE, 'spec.renewTime', '2026-01-01T00:00:00Z'),
    refused: all('parsing time "2026-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00"'),
    prefixOnly: true,
  },
  {
    name: 'Lease: acquireTime with milliseconds',
    object: withField(LEASE, 'spec.acquireTime', '2026-01-01T00:00:00.123Z'),
    refused: all('parsing time "2026-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00"'),
    prefixOnly: true,
  },
  {
    name: 'Lease: acquireTime with nanoseconds',
    object: withField(LEASE, 'spec.acquireTime', '2026-01-01T00:00:00.123456789Z'),
    refused: all('parsing time "2026-01-01T00:00:00.123456789Z" as "2006-01-02T15:04:05.000000Z07:00"'),
    prefixOnly: true,
  },
  {
    name: 'Lease: acquireTime on February 30',
    object: withField(LEASE, 'spec.acquireTime', '2026-02-30T00:00:00.000000Z'),
    refused: all('parsing time "2026-02-30T00:00:00.000000Z": day out of range'),
  },
  {
    name: 'Lease: acquireTime with a comma before its microseconds',
    object: withField(LEASE, 'spec.acquireTime', '2026-01-01T00:00:00,000000Z'),
  },
  // null is accepted anywhere by the decoding
  { name: 'ConfigMap: data null', object: withField(CM, 'data', null) },
  { name: 'ConfigMap: a data value null', object: withField(CM, 'data.k', null) },
  { name: 'ConfigMap: labels null', object: withField(CM, 'metadata.labels', null) },
  { name: 'Deployment: replicas null', object: withField(DEPLOY, 'spec.replicas', null) },
  { name: 'Deployment: a cpu limit null', object: withField(DEPLOY, `${C0}.resources.limits.cpu`, null) },
  { name: 'Service: targetPort null', object: withField(SVC, 'spec.ports[0].targetPort', null) },
  { name: 'Role: a verb null', object: withField(ROLE, 'rules[0].verbs[1]', null) },
  {
    name: 'Role: verbs a string',
    object: withField(ROLE, 'rules[0].verbs', 'get'),
    refused: typeError('string', 'PolicyRule.rules.verbs', '[]string'),
  },
  {
    name: 'Role: an apiGroup a number',
    object: withField(ROLE, 'rules[0].apiGroups[0]', 1),
    refused: typeError('number', 'PolicyRule.rules.apiGroups', 'string'),
  },
  {
    name: 'Job: backoffLimit a fraction',
    object: withField(JOB, 'spec.backoffLimit', 2.5),
    refused: typeError('number 2.5', 'JobSpec.spec.backoffLimit', 'int32'),
  },
];
