import { Chart, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import * as lib from '../../lib';

/** A second copy of the library (and of cdk8s/constructs), as an app gets when two packages each bundle one. */
function secondCopy(): typeof lib & { cdk8s: typeof import('cdk8s') } {
  let copy: any;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a second, isolated copy of the modules is the point
    copy = { ...require('../../lib'), cdk8s: require('cdk8s') };
  });
  return copy;
}

describe('construct identity works across copies of the library (Symbol.for markers, not instanceof)', () => {
  const other = secondCopy();
  const chart = new other.cdk8s.Chart(other.cdk8s.Testing.app(), 'other');
  const crd = new other.CustomResourceDefinition(chart, 'Crd', {
    group: 'ops.example.com',
    kind: 'Backup',
    versions: [{ name: 'v1', spec: other.Schema.object({ description: 'Spec.', properties: {} }) }],
  });
  const cr = new other.CustomResource(chart, 'Cr', {
    crd,
    metadata: { name: 'nightly', namespace: 'default' },
    spec: {},
  });
  const operator = new other.Operator(chart, 'op', {
    crds: [crd],
    image: 'ghcr.io/acme/op:1.0.0',
    contract: { watches: [crd] },
  });

  test('the copies really are distinct classes', () => {
    expect(other.CustomResourceDefinition).not.toBe(lib.CustomResourceDefinition);
    expect(crd instanceof lib.CustomResourceDefinition).toBe(false);
  });

  test.each([
    ['CustomResourceDefinition', () => lib.CustomResourceDefinition.isCustomResourceDefinition(crd)],
    ['CustomResource', () => lib.CustomResource.isCustomResource(cr)],
    ['Operator', () => lib.Operator.isOperator(operator)],
  ])('%s from the other copy is recognised', (_name, check) => {
    expect(check()).toBe(true);
  });

  test('plain constructs are not mistaken for them', () => {
    const plain = new Construct(new Chart(Testing.app(), 'c'), 'plain');
    expect(lib.CustomResourceDefinition.isCustomResourceDefinition(plain)).toBe(false);
    expect(lib.CustomResource.isCustomResource(plain)).toBe(false);
    expect(lib.Operator.isOperator(plain)).toBe(false);
  });
});
