import { Chart, Testing } from 'cdk8s';
import { CustomResourceDefinition, CustomResourceDefinitionProps, Schema } from '../../lib';

const version = { name: 'v1', spec: Schema.object({ description: 'Spec.', properties: {} }) };

function problems(...crds: Partial<CustomResourceDefinitionProps>[]): string[] {
  const chart = new Chart(Testing.app(), 'crds');
  crds.forEach(
    (p, i) =>
      new CustomResourceDefinition(chart, `Crd${i}`, {
        group: 'ops.example.com',
        kind: `Kind${i}`,
        versions: [version],
        ...p,
      }),
  );
  return chart.node.findAll().flatMap((c) => c.node.validate().map((m) => `[${c.node.path}] ${m}`));
}

describe('names used twice in one group (the apiserver would refuse them, or the second CRD replaces the first)', () => {
  test('the same plural: one object on the cluster, reported once on the later CRD', () => {
    expect(problems({ kind: 'Backup' }, { kind: 'BackupJob', plural: 'backups' })).toEqual([
      '[crds/Crd1] spec.names.plural: Invalid value: "backups": is already in use in group ops.example.com by [crds/Crd0]; ' +
        'both are backups.ops.example.com, so applying this one replaces the other',
    ]);
  });

  test("a short name used twice, or used as another CRD's plural", () => {
    expect(problems({ kind: 'Backup', shortNames: ['bk'] }, { kind: 'Bucket', shortNames: ['bk'] })).toEqual([
      '[crds/Crd1] spec.names.shortNames[0]: Invalid value: "bk": is already in use in group ops.example.com by [crds/Crd0]; ' +
        'the apiserver would not accept the names (NamesAccepted=False)',
    ]);
    expect(problems({ kind: 'Backup' }, { kind: 'Snapshot', shortNames: ['backup'] })).toHaveLength(1);
  });

  test('the same kind with another plural', () => {
    expect(problems({ kind: 'Backup' }, { kind: 'Backup', plural: 'backupz', singular: 'backupz' })).toEqual([
      expect.stringMatching(/^\[crds\/Crd1\] spec\.names\.kind: Invalid value: "Backup": is already in use/),
      expect.stringMatching(/^\[crds\/Crd1\] spec\.names\.listKind: Invalid value: "BackupList": is already in use/),
    ]);
  });

  test('other groups and distinct names are fine', () => {
    expect(
      problems(
        { kind: 'Backup', shortNames: ['bk'] },
        { kind: 'Backup', group: 'other.example.com', shortNames: ['bk'] },
      ),
    ).toEqual([]);
    expect(problems({ kind: 'Backup', shortNames: ['bk'] }, { kind: 'Restore', shortNames: ['rs'] })).toEqual([]);
  });

  test('a CRD added after a validation pass is checked against the CRDs before it, in the same tick', () => {
    const chart = new Chart(Testing.app(), 'crds');
    const validate = () => chart.node.findAll().flatMap((c) => c.node.validate());
    new CustomResourceDefinition(chart, 'First', { group: 'ops.example.com', kind: 'Backup', versions: [version] });
    expect(validate()).toEqual([]);
    new CustomResourceDefinition(chart, 'Second', {
      group: 'ops.example.com',
      kind: 'BackupJob',
      plural: 'backups',
      versions: [version],
    });
    expect(validate()).toEqual([
      expect.stringMatching(/^spec\.names\.plural: Invalid value: "backups": is already in use .* by \[crds\/First\]/),
    ]);
  });
});
