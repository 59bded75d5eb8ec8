import { KUBERNETES_VERSIONS } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';

/**
 * The checks of Services, PDBs, NetworkPolicies, Ingresses, IngressClasses and HPAs never throw, whatever a field
 * holds: each leaf and object of a full object replaced in turn by null, a string, a number, an object and a list
 * (what strict decoding does not refuse reaches them: null is an absent field).
 */

const FULL: readonly object[] = [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: {
      type: 'LoadBalancer',
      selector: { app: 'a' },
      ports: [{ name: 'a', port: 80, targetPort: 'http', nodePort: 30001, protocol: 'TCP', appProtocol: 'h2c' }],
      clusterIP: '10.0.0.5',
      clusterIPs: ['10.0.0.5'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      externalIPs: ['203.0.113.7'],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 31000,
      internalTrafficPolicy: 'Local',
      loadBalancerSourceRanges: ['10.0.0.0/8'],
      loadBalancerClass: 'a.com/b',
      allocateLoadBalancerNodePorts: true,
      trafficDistribution: 'PreferClose',
      externalName: 'a.com',
    },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'p' },
    spec: {
      minAvailable: '10%',
      maxUnavailable: 1,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
      selector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'n' },
    spec: {
      podSelector: { matchLabels: { a: 'b' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }],
          ports: [{ port: 80, endPort: 90, protocol: 'TCP' }],
        },
      ],
      egress: [{ to: [{ podSelector: {}, namespaceSelector: {} }], ports: [{ port: 'http' }] }],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'i', annotations: { 'kubernetes.io/ingress.class': 'c' } },
    spec: {
      ingressClassName: 'c',
      defaultBackend: { resource: { apiGroup: 'a.com', kind: 'K', name: 'n' } },
      rules: [
        {
          host: '*.a.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 's', port: { number: 80, name: 'http' } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['a.com'], secretName: 's' }],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'c' },
    spec: {
      controller: 'a.com/b',
      parameters: { apiGroup: 'a.com', kind: 'K', name: 'n', scope: 'Namespace', namespace: 'x' },
    },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        {
          type: 'Object',
          object: {
            describedObject: { kind: 'S', name: 's' },
            metric: { name: 'm', selector: {} },
            target: { type: 'Value', value: '1' },
          },
        },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Max',
          tolerance: '0.1',
          policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
        },
      },
    },
  },
];

const REPLACEMENTS: readonly unknown[] = [null, 'x', -1, 1.5, {}, [], [null], { a: null }];

/** Every path to an object field or list item below `spec` (and metadata's annotations), with its parent. */
function* places(value: any, path: string[] = []): Generator<string[]> {
  if (value === null || typeof value !== 'object') return;
  for (const k of Object.keys(value)) {
    const p = [...path, k];
    if (p[0] === 'spec' || p[0] === 'metadata') yield p;
    yield* places(value[k], p);
  }
}

function replaced(object: object, path: readonly string[], replacement: unknown): any {
  const copy = structuredClone(object) as any;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path[path.length - 1]] = replacement;
  return copy;
}

test.each(FULL.map((o) => [(o as any).kind, o] as const))('%s: no throw on any field of any shape', (_kind, object) => {
  let checked = 0;
  for (const path of places(object)) {
    for (const replacement of REPLACEMENTS) {
      const mutated = replaced(object, path, replacement);
      for (const version of KUBERNETES_VERSIONS) {
        expect(() => builtinObjectIssues(mutated, version)).not.toThrow();
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(100);
});
