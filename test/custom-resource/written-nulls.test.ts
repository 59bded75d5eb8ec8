import { Testing } from 'cdk8s';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { CustomResource } from '../../lib/custom-resource/custom-resource';
import { Warnings } from '../../lib/synth-metadata/warnings';

describe('nulls an example resource writes but the apiserver does not store', () => {
  test('each null that is not stored as null gets a warning naming the field and what is stored instead', () => {
    const chart = Testing.chart();
    const crd = new CustomResourceDefinition(chart, 'Crd', {
      group: 'example.com',
      kind: 'Widget',
      versions: [
        {
          name: 'v1',
          spec: {
            type: 'object',
            properties: {
              size: { type: 'string', default: 'small' },
              note: { type: 'string', nullable: true },
              tags: { type: 'array', items: { type: 'string', default: 'none' } },
              kept: { type: 'array', items: { type: 'string', nullable: true } },
            },
          },
        },
      ],
    });
    new CustomResource(chart, 'w', {
      crd,
      metadata: { name: 'w', namespace: 'default' },
      spec: { size: null, note: null, tags: ['a', null], kept: [null] },
    });
    expect(chart.node.findAll().flatMap((c) => c.node.validate())).toStrictEqual([]);
    expect(Warnings.collect(chart).filter((w) => w.includes('null'))).toStrictEqual([
      '[test/w] spec.size: null is not written (cdk8s drops null fields), so the apiserver stores the default "small" here (got null)',
      '[test/w] spec.note: null is not written (cdk8s drops null fields), so the apiserver stores nothing here although the field is nullable (got null)',
      '[test/w] spec.tags[1]: null is stored as the items\' default "none" (the items are not nullable) (got null)',
    ]);
  });
});
