/**
 * The chart's ValidatingAdmissionPolicies on the real single-node cluster (a suite of test/node/run.ts, after
 * `dist/` is applied as dist/APPLY.md says): kube-controller-manager's status controller type-checks every policy of
 * `dist/` with 0 warnings, and SampleDB's switchover policy refuses a switchover (`spec.primary`) to a user outside
 * the group sampledb-admins and admits a member's. The users are impersonated by the admin; RBAC lets both edit
 * SampleDBs in the suite's namespace (which no operator watches: nothing is reconciled, admission alone is tested).
 */
import { spawnSync } from 'child_process';
import { NodeHarness, assert, distObjects, until } from '../harness';

const NS = 'e2e-policy';
const EDITORS = 'e2e-sampledb-editors';

export default async function policy(h: NodeHarness): Promise<void> {
  const step = h.step.bind(h);
  /** kubectl as an impersonated user in the editors group (and the given groups): exit code and output. */
  const as = (user: string, groups: string[], ...args: string[]) => {
    const r = spawnSync(
      'kubectl',
      [...args, `--as=${user}`, `--as-group=${EDITORS}`, ...groups.map((g) => `--as-group=${g}`)],
      { env: h.env, encoding: 'utf8' },
    );
    return { code: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
  };
  const patchPrimary = (user: string, groups: string[], primary: string) =>
    as(
      user,
      groups,
      'patch',
      'sampledb',
      'switch-db',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { primary } }),
    );

  await step('dist/ applied as dist/APPLY.md says', () => h.ensureDistApplied());

  await step('every ValidatingAdmissionPolicy of dist/ type-checked by the apiserver: 0 warnings', async () => {
    const names = distObjects()
      .filter((o) => o.kind === 'ValidatingAdmissionPolicy')
      .map((o) => o.metadata.name);
    assert(names.includes('sampledb-switchover'), `dist/ has no sampledb-switchover policy (has: ${names.join(', ')})`);
    const found = await until(
      'status.typeChecking of every policy written',
      () => {
        const statuses = names.map((n) => h.json('get', 'validatingadmissionpolicy', n));
        return statuses.every((p) => p.status?.observedGeneration === p.metadata.generation && p.status?.typeChecking)
          ? statuses
          : undefined;
      },
      60,
      500,
    );
    const warnings = found.flatMap((p) =>
      (p.status.typeChecking.expressionWarnings ?? []).map(
        (w: { fieldRef: string; warning: string }) => `${p.metadata.name} ${w.fieldRef}: ${w.warning}`,
      ),
    );
    assert(warnings.length === 0, `type-checking warnings: ${warnings.join(' | ')}`);
    return `${names.join(', ')}: 0 warnings`;
  });

  await step('setup: a namespace, RBAC for the editors group, a SampleDB without spec.primary', () => {
    h.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'sampledb-editor', namespace: NS },
        rules: [
          {
            apiGroups: ['database.example.com'],
            resources: ['sampledbs'],
            verbs: ['get', 'create', 'patch', 'update'],
          },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'sampledb-editors', namespace: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'sampledb-editor' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: EDITORS }],
      },
    );
    const r = spawnSync('kubectl', ['create', '-n', NS, '-f', '-', '--as=e2e-bob', `--as-group=${EDITORS}`], {
      env: h.env,
      encoding: 'utf8',
      input: JSON.stringify({
        apiVersion: 'database.example.com/v2',
        kind: 'SampleDB',
        metadata: { name: 'switch-db' },
        spec: { version: '16.4' },
      }),
    });
    assert(r.status === 0, `e2e-bob could not create a SampleDB: ${r.stderr}`);
  });

  await step("switchover refused to a user outside sampledb-admins, with the policy's message", async () => {
    const refused = await until(
      'the patch refused',
      () => {
        const r = patchPrimary('e2e-bob', [], 'switch-db-1');
        return r.code !== 0 ? r : undefined;
      },
      30,
      500,
    );
    assert(
      /denied request: .*only members of group sampledb-admins may request a switchover \(spec\.primary\), not e2e-bob/.test(
        refused.output,
      ),
      `unexpected refusal: ${refused.output}`,
    );
    const primary = h.json('get', 'sampledb', 'switch-db', '-n', NS).spec.primary;
    assert(primary === undefined, `spec.primary changed anyway: ${primary}`);
    return refused.output.trim().split('\n')[0];
  });

  await step('switchover admitted for a member of sampledb-admins', () => {
    const r = patchPrimary('e2e-alice', ['sampledb-admins'], 'switch-db-1');
    assert(r.code === 0, `refused: ${r.output}`);
    const primary = h.json('get', 'sampledb', 'switch-db', '-n', NS).spec.primary;
    assert(primary === 'switch-db-1', `spec.primary is ${primary}`);
    return r.output.trim();
  });

  await step("cleanup: the suite's namespace deleted", () => {
    h.kubectl('delete', 'namespace', NS, '--wait=true', '--timeout=120s');
  });
}
