import * as path from 'path';
import { Testing } from 'cdk8s';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { Warnings } from '../../lib/synth-metadata/warnings';

const VELERO = path.join(__dirname, '../fixtures/realworld-crds/velero__podvolumebackups.velero.io.yaml');
const COLUMN = 'spec.versions[0].additionalPrinterColumns[7].jsonPath';

describe('acknowledged CRD warnings', () => {
  test('a warning names the construct and the field, and is printed until acknowledged', () => {
    const chart = Testing.chart();
    CustomResourceDefinition.fromFile(chart, 'velero', VELERO);
    expect(chart.node.findAll().flatMap((c) => c.node.validate())).toStrictEqual([]);
    expect(Warnings.collect(chart)).toStrictEqual([
      `[test/velero] ${COLUMN}: names no field declared in the schema (no .status.node): the column is always empty (got ".status.node")`,
    ]);
  });

  test('an acknowledged warning is not printed', () => {
    const chart = Testing.chart();
    CustomResourceDefinition.fromFile(chart, 'velero', VELERO, {
      acknowledgedWarnings: [{ path: COLUMN, reason: 'upstream CRD, the column is empty on purpose' }],
    });
    chart.node.findAll().forEach((c) => c.node.validate());
    expect(Warnings.collect(chart)).toStrictEqual([]);
  });

  test('an acknowledgement that matches no warning is reported', () => {
    const chart = Testing.chart();
    CustomResourceDefinition.fromFile(chart, 'velero', VELERO, {
      acknowledgedWarnings: [
        { path: COLUMN, reason: 'x' },
        { path: 'spec.nothing', reason: 'old' },
      ],
    });
    chart.node.findAll().forEach((c) => c.node.validate());
    expect(Warnings.collect(chart)).toStrictEqual([
      '[test/velero] acknowledgedWarnings: "spec.nothing" matches no warning (stale? the reason was: old)',
    ]);
  });
});
