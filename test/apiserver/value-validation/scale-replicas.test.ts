import { checkScaleReplicas } from '../../../lib/apiserver/value-validation/scale-replicas';

/**
 * The scale subresource's accessor errors name the Go type the apiserver decoded: a whole number is an int64, a
 * fraction a float64 (found by the custom resource differential, seed 41: a MachinePool whose `spec` is 1).
 */
describe('checkScaleReplicas', () => {
  const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };

  test('a step that is a whole number: int64', () => {
    expect(checkScaleReplicas(scale, { spec: 1 }, true)).toStrictEqual([
      {
        path: '.spec.replicas',
        message:
          'Invalid value: 0: .spec.replicas accessor error: 1 is of the type int64, expected map[string]interface{}',
        value: 1,
      },
    ]);
  });

  test('a step that is a fraction: float64', () => {
    expect(checkScaleReplicas(scale, { spec: 1.5 }, true)[0].message).toBe(
      'Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected map[string]interface{}',
    );
  });

  test('replicas that are a fraction: not an int64', () => {
    expect(checkScaleReplicas(scale, { spec: { replicas: 2.5 } }, true)[0].message).toBe(
      'Invalid value: 0: .spec.replicas accessor error: 2.5 is of the type float64, expected int64',
    );
  });
});
