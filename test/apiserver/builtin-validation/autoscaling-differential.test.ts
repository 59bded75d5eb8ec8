import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** autoscaling/v2 HorizontalPodAutoscaler: synth's verdict against the real apiservers'. */

const m = mutationOf(() => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'h' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' },
    minReplicas: 1,
    maxReplicas: 3,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  },
}));
const target = (o: any, t: object) => (o.spec.metrics[0].resource.target = t);
const metric = (o: any, spec: object) => (o.spec.metrics[0] = spec);
const value = (v: string) => ({ type: 'Value', value: v });
const rules = (o: any, direction: string, r: object) => (o.spec.behavior = { [direction]: r });
const policy = (p: object) => ({ policies: [{ type: 'Pods', value: 1, periodSeconds: 60, ...p }] });

const CASES = [
  m('the base'),
  m('no scaleTargetRef kind', (o) => delete o.spec.scaleTargetRef.kind),
  m('no scaleTargetRef name', (o) => delete o.spec.scaleTargetRef.name),
  m('scaleTargetRef name a/b', (o) => (o.spec.scaleTargetRef.name = 'a/b')),
  m('scaleTargetRef kind a/b', (o) => (o.spec.scaleTargetRef.kind = 'a/b')),
  m('scaleTargetRef name ..', (o) => (o.spec.scaleTargetRef.name = '..')),
  m('scaleTargetRef apiVersion a/b/c', (o) => (o.spec.scaleTargetRef.apiVersion = 'a/b/c')),
  m('minReplicas 0 (no scale-to-zero gate)', (o) => (o.spec.minReplicas = 0)),
  m('minReplicas 0 with an External metric', (o) => {
    o.spec.minReplicas = 0;
    metric(o, { type: 'External', external: { metric: { name: 'q' }, target: value('10') } });
  }),
  m('minReplicas -1', (o) => (o.spec.minReplicas = -1)),
  m('maxReplicas below minReplicas', (o) => (o.spec.minReplicas = 5)),
  m('maxReplicas 0, minReplicas defaulted', (o) => {
    delete o.spec.minReplicas;
    o.spec.maxReplicas = 0;
  }),
  m('maxReplicas equal to minReplicas', (o) => (o.spec.maxReplicas = 1)),
  m('no metrics (defaulted)', (o) => delete o.spec.metrics),
  m('metric type Bogus', (o) => (o.spec.metrics[0].type = 'Bogus')),
  m('metric type ""', (o) => (o.spec.metrics[0].type = '')),
  m('Resource without name', (o) => delete o.spec.metrics[0].resource.name),
  m('Resource without its source', (o) => delete o.spec.metrics[0].resource),
  m('Resource with a pods source too', (o) => {
    o.spec.metrics[0].pods = { metric: { name: 'x' }, target: { type: 'AverageValue', averageValue: '1' } };
  }),
  m('Utilization without averageUtilization', (o) => delete o.spec.metrics[0].resource.target.averageUtilization),
  m('averageUtilization 0', (o) => (o.spec.metrics[0].resource.target.averageUtilization = 0)),
  m('target type Bogus', (o) => (o.spec.metrics[0].resource.target.type = 'Bogus')),
  m('Resource target Value', (o) => target(o, value('1'))),
  m('Resource target AverageValue 100m', (o) => target(o, { type: 'AverageValue', averageValue: '100m' })),
  m('AverageValue without averageValue', (o) => target(o, { type: 'AverageValue' })),
  m('averageValue -1', (o) => target(o, { type: 'AverageValue', averageValue: '-1' })),
  m('averageValue 0', (o) => target(o, { type: 'AverageValue', averageValue: '0' })),
  m('averageValue as a number, -2', (o) => target(o, { type: 'AverageValue', averageValue: -2 })),
  m('averageUtilization and averageValue', (o) => (o.spec.metrics[0].resource.target.averageValue = '1')),
  m('Pods AverageValue', (o) => {
    metric(o, {
      type: 'Pods',
      pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } },
    });
  }),
  m('Pods Utilization', (o) => {
    metric(o, {
      type: 'Pods',
      pods: { metric: { name: 'qps' }, target: { type: 'Utilization', averageUtilization: 10 } },
    });
  }),
  m('Pods without metric name', (o) => {
    metric(o, { type: 'Pods', pods: { metric: {}, target: { type: 'AverageValue', averageValue: '10' } } });
  }),
  m('Pods metric name a/b', (o) => {
    metric(o, {
      type: 'Pods',
      pods: { metric: { name: 'a/b' }, target: { type: 'AverageValue', averageValue: '10' } },
    });
  }),
  m('Object Value', (o) => {
    metric(o, {
      type: 'Object',
      object: { describedObject: { kind: 'Service', name: 's' }, metric: { name: 'rps' }, target: value('10') },
    });
  }),
  m('Object without describedObject', (o) => {
    metric(o, { type: 'Object', object: { metric: { name: 'rps' }, target: value('10') } });
  }),
  m('Object Utilization', (o) => {
    metric(o, {
      type: 'Object',
      object: {
        describedObject: { kind: 'Service', name: 's' },
        metric: { name: 'rps' },
        target: { type: 'Utilization', averageUtilization: 5 },
      },
    });
  }),
  m('External Value', (o) => metric(o, { type: 'External', external: { metric: { name: 'q' }, target: value('10') } })),
  m('External value -1', (o) =>
    metric(o, { type: 'External', external: { metric: { name: 'q' }, target: value('-1') } }),
  ),
  m('External Utilization', (o) => {
    metric(o, {
      type: 'External',
      external: { metric: { name: 'q' }, target: { type: 'Utilization', averageUtilization: 5 } },
    });
  }),
  m('External value and averageValue', (o) => {
    metric(o, {
      type: 'External',
      external: { metric: { name: 'q' }, target: { type: 'Value', value: '1', averageValue: '1' } },
    });
  }),
  m('ContainerResource', (o) => {
    metric(o, {
      type: 'ContainerResource',
      containerResource: { name: 'cpu', container: 'c', target: { type: 'Utilization', averageUtilization: 50 } },
    });
  }),
  m('ContainerResource without container', (o) => {
    metric(o, {
      type: 'ContainerResource',
      containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
    });
  }),
  m('ContainerResource container Bad_', (o) => {
    metric(o, {
      type: 'ContainerResource',
      containerResource: { name: 'cpu', container: 'Bad_', target: { type: 'Utilization', averageUtilization: 50 } },
    });
  }),
  m('periodSeconds 0', (o) => rules(o, 'scaleUp', policy({ periodSeconds: 0 }))),
  m('periodSeconds 1800', (o) => rules(o, 'scaleUp', policy({ periodSeconds: 1800 }))),
  m('periodSeconds 1801', (o) => rules(o, 'scaleUp', policy({ periodSeconds: 1801 }))),
  m('policy value 0', (o) => rules(o, 'scaleDown', policy({ type: 'Percent', value: 0 }))),
  m('policy type Bogus', (o) => rules(o, 'scaleDown', policy({ type: 'Bogus' }))),
  m('selectPolicy Bogus', (o) => rules(o, 'scaleDown', { selectPolicy: 'Bogus' })),
  m('selectPolicy Disabled', (o) => rules(o, 'scaleDown', { selectPolicy: 'Disabled' })),
  m('stabilizationWindowSeconds 3600', (o) => rules(o, 'scaleDown', { stabilizationWindowSeconds: 3600 })),
  m('stabilizationWindowSeconds 3601', (o) => rules(o, 'scaleDown', { stabilizationWindowSeconds: 3601 })),
  m('stabilizationWindowSeconds -1', (o) => rules(o, 'scaleUp', { stabilizationWindowSeconds: -1 })),
  m('empty policies', (o) => rules(o, 'scaleUp', { policies: [] })),
  m('tolerance -1', (o) => rules(o, 'scaleUp', { tolerance: '-1' })),
  m('tolerance 0.1', (o) => rules(o, 'scaleUp', { tolerance: '0.1' })),
];

describeBuiltinDifferential('autoscaling/v2 HorizontalPodAutoscaler: synth and the apiserver', CASES);
