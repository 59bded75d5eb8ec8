import { Chart, Testing } from 'cdk8s';
import { ResourceScope } from '../../lib/apiserver/crd-manifest';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { CustomResource } from '../../lib/custom-resource/custom-resource';
import { validationErrors } from '../support/synth-errors';

/** A built CustomResourceDefinition with defaults, a set list, int-or-string and CEL rules. */
function databaseCrd(chart: Chart, scope = ResourceScope.NAMESPACED): CustomResourceDefinition {
  return new CustomResourceDefinition(chart, 'Crd', {
    group: 'database.example.com',
    kind: 'Database',
    scope,
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: true },
        spec: {
          type: 'object',
          required: ['engine'],
          'x-kubernetes-validations': [
            {
              rule: "self.engine != 'sqlite' || self.replicas == 1",
              message: 'sqlite cannot be replicated',
              fieldPath: '.replicas',
            },
            { rule: 'self.engine == oldSelf.engine', message: 'engine is immutable' },
          ],
          properties: {
            engine: { type: 'string', enum: ['postgres', 'mysql', 'sqlite'] },
            replicas: { type: 'integer', minimum: 1, maximum: 9, default: 1 },
            storage: {
              type: 'string',
              default: '1Gi',
              maxLength: 16,
              'x-kubernetes-validations': [{ rule: 'isQuantity(self)', message: 'must be a quantity' }],
            },
            port: { 'x-kubernetes-int-or-string': true },
            users: {
              type: 'array',
              maxItems: 16,
              'x-kubernetes-list-type': 'set',
              items: { type: 'string', maxLength: 63 },
            },
          },
        },
        status: { type: 'object', properties: { ready: { type: 'boolean' } } },
      },
    ],
  });
}

describe('CustomResource with the CustomResourceDefinition construct', () => {
  test('the CRD itself is valid and a good example synthesizes unchanged', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    databaseCrd(chart);
    const db = new CustomResource(chart, 'Db', {
      apiVersion: 'database.example.com/v1alpha1',
      kind: 'Database',
      metadata: { name: 'orders' },
      spec: { engine: 'postgres', replicas: 3, port: 'pg', users: ['app', 'admin'] },
    });
    expect(validationErrors(app)).toBe('');
    expect(db.toJson()).toStrictEqual({
      apiVersion: 'database.example.com/v1alpha1',
      kind: 'Database',
      metadata: { name: 'orders' },
      spec: { engine: 'postgres', replicas: 3, port: 'pg', users: ['app', 'admin'] },
    });
  });

  test('finds the CRD construct by group and kind and reports every problem', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    databaseCrd(chart);
    new CustomResource(chart, 'Bad', {
      apiVersion: 'database.example.com/v1alpha1',
      kind: 'Database',
      metadata: { name: 'bad' },
      spec: { engine: 'sqlite', replicas: 2, storage: 'lots', users: ['a', 'a'] },
    });
    const errors = validationErrors(app);
    expect(errors).toContain('[test/Bad] spec.replicas: Invalid value: "object": sqlite cannot be replicated');
    expect(errors).toContain('[test/Bad] spec.storage: Invalid value: "string": must be a quantity');
    expect(errors).toContain('[test/Bad] spec.users[1]: Duplicate value: "a"');
  });

  test('format quantity: values resource.ParseQuantity refuses fail synth (the apiserver would store them)', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    new CustomResourceDefinition(chart, 'Crd', {
      group: 'database.example.com',
      kind: 'Volume',
      versions: [
        {
          name: 'v1',
          spec: {
            type: 'object',
            properties: {
              size: { type: 'string', format: 'quantity' },
              limits: {
                type: 'object',
                additionalProperties: { 'x-kubernetes-int-or-string': true, format: 'quantity' },
              },
              steps: { type: 'array', items: { type: 'string', format: 'quantity' } },
            },
          },
        },
      ],
    });
    new CustomResource(chart, 'Good', {
      apiVersion: 'database.example.com/v1',
      kind: 'Volume',
      metadata: { name: 'good' },
      spec: { size: '1.5Gi', limits: { cpu: '500m', 'example.com/gpu': 2 }, steps: ['1e3', '2k'] },
    });
    expect(validationErrors(app)).toBe('');
    new CustomResource(chart, 'Bad', {
      apiVersion: 'database.example.com/v1',
      kind: 'Volume',
      metadata: { name: 'bad' },
      spec: { size: '1Gib', limits: { cpu: '500m', 'example.com/gpu': 'two' }, steps: ['1e3', '1 k'] },
    });
    const errors = validationErrors(app)
      .split('\n')
      .filter((l) => l.includes('Kubernetes quantity'));
    const hint =
      'must be a Kubernetes quantity such as 500m, 1Gi or 2.5e3 (the apiserver does not check format "quantity" and would store it; ' +
      "the controller's resource.ParseQuantity would not parse it)";
    expect(errors.map((l) => l.trim())).toStrictEqual([
      `[test/Bad] spec.limits[example.com/gpu]: Invalid value: ${hint} (got "two")`,
      `[test/Bad] spec.size: Invalid value: ${hint} (got "1Gib")`,
      `[test/Bad] spec.steps[1]: Invalid value: ${hint} (got "1 k")`,
    ]);
  });

  test('uses the CRD scope and the transition rule', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    const crd = databaseCrd(chart, ResourceScope.CLUSTER);
    new CustomResource(chart, 'Db', {
      crd,
      metadata: { name: 'db', namespace: 'default' },
      spec: { engine: 'mysql' },
      previous: { spec: { engine: 'postgres' } },
    });
    const errors = validationErrors(app);
    expect(errors).not.toMatch(/metadata\.namespace/);
    expect(errors).toMatch(/\[test\/Db\] spec: Invalid value: "object": engine is immutable/);
  });

  test('the CRD construct reports static CEL problems of its rules', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    new CustomResourceDefinition(chart, 'Crd', {
      group: 'database.example.com',
      kind: 'Database',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          spec: {
            type: 'object',
            'x-kubernetes-validations': [{ rule: 'self.replicaz > 0' }],
            properties: { replicas: { type: 'integer' } },
          },
        },
      ],
    });
    expect(validationErrors(app)).toMatch(
      /\[test\/Crd\] .*x-kubernetes-validations\[0\]\.rule: Invalid value: compilation failed: ERROR: <input>:1:\d+: undefined field 'replicaz'/,
    );
  });
});
