import { App, Chart, Testing } from 'cdk8s';
import { SampleDbChart } from '../../apps/sampledb/sampledb-chart';
import { sampleDbCrd } from '../../apps/sampledb/sampledb-crd';
import { SampleDB } from '../../imports/database.example.com';

function chartWithCrd(): Chart {
  const chart = new Chart(Testing.app(), 'test');
  sampleDbCrd(chart);
  return chart;
}

describe('SampleDB app', () => {
  test('synthesizes the CRD, the operator and both examples', () => {
    const manifests = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb'));
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'CustomResourceDefinition/sampledbs.database.example.com',
      'Namespace/sampledb-operator-system',
      'ServiceAccount/sampledb-operator',
      'Role/sampledb-operator-manager',
      'RoleBinding/sampledb-operator-manager',
      'Role/sampledb-operator-webhook',
      'RoleBinding/sampledb-operator-webhook',
      'ClusterRole/sampledb-operator-conversion',
      'ClusterRoleBinding/sampledb-operator-conversion',
      'Role/sampledb-operator-leader-election',
      'RoleBinding/sampledb-operator-leader-election',
      'ClusterRole/sampledb-operator-webhook-namespaces',
      'ClusterRoleBinding/sampledb-operator-webhook-namespaces',
      'ClusterRole/sampledb-operator-webhook-ca-injection',
      'ClusterRoleBinding/sampledb-operator-webhook-ca-injection',
      'ValidatingWebhookConfiguration/sampledb-operator',
      'MutatingWebhookConfiguration/sampledb-operator',
      'Deployment/sampledb-operator',
      'Service/sampledb-operator-metrics',
      'PodDisruptionBudget/sampledb-operator',
      'Service/sampledb-operator-webhook',
      'Secret/sampledb-operator-webhook-certs',
      'NetworkPolicy/sampledb-operator',
      'ServiceMonitor/sampledb-operator',
      'PrometheusRule/sampledb-operator',
      'ValidatingAdmissionPolicy/sampledb-switchover',
      'ValidatingAdmissionPolicyBinding/sampledb-switchover',
      'MutatingAdmissionPolicy/sampledb-storage-defaults',
      'MutatingAdmissionPolicyBinding/sampledb-storage-defaults',
      'SampleDB/my-db',
      'SampleDB/scratch-db',
    ]);
    const crd = manifests[0];
    expect(crd.spec.names).toMatchObject({ kind: 'SampleDB', plural: 'sampledbs', shortNames: ['sdb'] });
    expect(crd.spec.versions.map((v: any) => [v.name, v.served, v.storage])).toEqual([
      ['v1', true, false],
      ['v2', true, true],
    ]);
    expect(crd.spec.conversion.webhook.clientConfig).toEqual({
      service: {
        namespace: 'sampledb-operator-system',
        name: 'sampledb-operator-webhook',
        path: '/convert',
        port: 443,
      },
    });
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.restoreFrom.type).toBe('string');
    const v1 = crd.spec.versions[1]; // v2, the storage version
    expect(v1.schema.openAPIV3Schema.description).toMatch(/^SampleDB is a PostgreSQL database/);
    expect(v1.schema.openAPIV3Schema.properties.kind.description).toMatch(/^Kind is a string value/);
    expect(v1.additionalPrinterColumns.map((c: any) => c.name)).toEqual([
      'Version',
      'Replicas',
      'Ready',
      'Primary',
      'Phase',
      'Age',
    ]);
    expect(v1.subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.labelSelector',
      },
    });
    expect(v1.schema.openAPIV3Schema.properties.status.properties.conditions).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    });
    // The example is emitted as written: defaults are the apiserver's job.
    expect(manifests.find((m) => m.metadata.name === 'scratch-db').spec).toEqual({
      version: '17',
      volumeRetention: 'Retain',
    });
  });

  test('postgres image overrides reach the operator as its environment; malformed ones fail synth, each named', () => {
    const manifests = Testing.synth(
      new SampleDbChart(Testing.app(), 'sampledb', {
        postgresImages: {
          repository: 'mirror.example.com/library/postgres',
          byMajor: { 16: 'registry.internal/pg16:16.4-hardened' },
        },
      }),
    );
    const env = manifests.find((m) => m.kind === 'Deployment').spec.template.spec.containers[0].env;
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'SAMPLEDB_POSTGRES_REPOSITORY', value: 'mirror.example.com/library/postgres' },
        { name: 'SAMPLEDB_POSTGRES_IMAGES', value: '16=registry.internal/pg16:16.4-hardened' },
      ]),
    );
    const defaults =
      Testing.synth(new SampleDbChart(Testing.app(), 'sampledb')).find((m) => m.kind === 'Deployment').spec.template
        .spec.containers[0].env ?? [];
    expect(defaults.map((e: any) => e.name)).not.toContain('SAMPLEDB_POSTGRES_IMAGES');
    let error: Error | undefined;
    try {
      Testing.synth(
        new SampleDbChart(Testing.app(), 'sampledb', {
          postgresImages: { byMajor: { 16: 'mirror/pg:latest', 12: 'mirror/pg:12.1' } },
        }),
      );
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(
      /\[sampledb\] postgresImages: postgres image for major 12: the operator supports only majors 13, 14, 15, 16, 17/,
    );
    expect(error?.message).toMatch(
      /\[sampledb\] postgresImages: postgres image for major 16: 'mirror\/pg:latest' must be pinned/,
    );
  });

  test('the operator gets exactly the contract permissions and a pinned, hardened controller', () => {
    const manifests = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb'));
    // Cluster-wide only what conversion and storage migration need (storedVersions is cluster-wide): the CRD by
    // name, and list/update of SampleDBs to rewrite them; everything else is a Role in the watched namespace.
    const cluster = manifests.filter((m) => m.kind === 'ClusterRole');
    expect(cluster.map((m) => m.metadata.name)).toEqual([
      'sampledb-operator-conversion',
      'sampledb-operator-webhook-namespaces',
      'sampledb-operator-webhook-ca-injection',
    ]);
    // the admission webhooks, each by name: the watched Namespace (defaults from its annotations), the operator's
    // own two webhook configurations (CA bundle injection)
    expect(cluster[1].rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['default'], verbs: ['get'] },
    ]);
    expect(cluster[2].rules).toEqual([
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['validatingwebhookconfigurations'],
        resourceNames: ['sampledb-operator'],
        verbs: ['get', 'patch'],
      },
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations'],
        resourceNames: ['sampledb-operator'],
        verbs: ['get', 'patch'],
      },
    ]);
    expect(cluster[0].rules).toEqual([
      { apiGroups: ['database.example.com'], resources: ['sampledbs'], verbs: ['list', 'update'] },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['sampledbs.database.example.com'],
        verbs: ['get', 'patch'],
      },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions/status'],
        resourceNames: ['sampledbs.database.example.com'],
        verbs: ['update'],
      },
      // kube-controller-manager's in-tree migration where served: any name to create, its own name to follow
      { apiGroups: ['storagemigration.k8s.io'], resources: ['storageversionmigrations'], verbs: ['create'] },
      {
        apiGroups: ['storagemigration.k8s.io'],
        resources: ['storageversionmigrations'],
        resourceNames: ['v2.sampledbs.database.example.com'],
        verbs: ['get', 'delete'],
      },
    ]);
    // the webhook certificate Secret by name, in the operator's namespace
    expect(manifests.find((m) => m.kind === 'Role' && m.metadata.name === 'sampledb-operator-webhook').rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['sampledb-operator-webhook-certs'],
        verbs: ['get', 'update'],
      },
    ]);
    const role = manifests.find((m) => m.kind === 'Role' && m.metadata.name === 'sampledb-operator-manager');
    expect(role.metadata.namespace).toBe('default');
    const verbsOf = (group: string, resource: string) =>
      role.rules
        .filter((r: any) => r.apiGroups.includes(group) && r.resources.includes(resource))
        .flatMap((r: any) => r.verbs)
        .sort();
    const owned = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
    // Secrets only by name: no list/watch, so no Secret the operator did not name can be read.
    expect(verbsOf('', 'secrets')).toEqual(['create', 'delete', 'get', 'patch', 'update']);
    for (const [group, resource] of [
      ['', 'services'],
      ['', 'persistentvolumeclaims'],
      ['apps', 'statefulsets'],
      ['batch', 'jobs'],
      ['batch', 'cronjobs'],
    ]) {
      expect([resource, verbsOf(group, resource)]).toEqual([resource, owned]);
    }
    expect(verbsOf('database.example.com', 'sampledbs/status')).toEqual(['get', 'patch', 'update']);
    expect(verbsOf('database.example.com', 'sampledbs/finalizers')).toEqual(['update']);
    expect(verbsOf('database.example.com', 'sampledbs')).toEqual(
      expect.arrayContaining(['get', 'list', 'watch', 'patch', 'update']),
    );
    expect(verbsOf('database.example.com', 'sampledbs')).not.toContain('delete');
    expect(JSON.stringify(role.rules)).not.toContain('*');

    const deployment = manifests.find((m) => m.kind === 'Deployment');
    const container = deployment.spec.template.spec.containers[0];
    expect(container.image).toBe('ghcr.io/cdk8s-operator/sampledb-controller:0.1.0');
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
    });
    expect(container.args).toContain('--leader-elect');

    const rule = manifests.find((m) => m.kind === 'PrometheusRule');
    const alerts = rule.spec.groups[0].rules.map((r: any) => [r.alert, r.expr]);
    expect(alerts).toEqual(
      expect.arrayContaining([
        ['SampleDBBackupFailed', expect.stringContaining('sampledb_backup_failed')],
        ['SampleDBReplicasUnready', expect.stringContaining('sampledb_replicas_ready')],
      ]),
    );
  });

  test.each<[string, any, any, RegExp]>([
    [
      'a storage change',
      { version: '16', storage: '1Gi' },
      { version: '16', storage: '2Gi' },
      /spec\.storage.*storage is immutable/,
    ],
    [
      'an unknown volumeRetention',
      { version: '16', volumeRetention: 'Keep' },
      undefined,
      /spec\.volumeRetention.*Unsupported value/,
    ],
    [
      'a restoreFrom that is not a backup name',
      { version: '16', restoreFrom: { backup: 'Not A Name' } },
      undefined,
      /spec\.restoreFrom\.backup.*should match/,
    ],
  ])('fails synth for %s', (_name, spec, previous, message) => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'bad', {
      metadata: { name: 'bad' },
      spec: previous ? previous : spec,
      ...(previous ? { previous: { spec } } : {}),
    });
    expect(() => Testing.synth(chart)).toThrow(message);
  });

  test.each<[string, any, RegExp]>([
    ['replicas below the minimum', { version: '16', replicas: 0 }, /spec\.replicas.*greater than or equal to 1/],
    ['a field the CRD does not declare', { version: '16', replica: 2 }, /spec\.replica.*unknown field/i],
    ['a version that is not a version', { version: 'latest' }, /spec\.version.*should match/],
    [
      'backupRetention without a schedule',
      { version: '16', backupRetention: 3 },
      /spec\.backupRetention.*backupRetention needs a backupSchedule/,
    ],
    ['no version', { replicas: 1 }, /spec\.version.*Required value/],
    [
      'a parameter the operator owns',
      { version: '16', postgresql: { parameters: { work_mem: '8MB', synchronous_standby_names: '' } } },
      /spec\.postgresql\.parameters.*parameters the operator owns cannot be set: listen_addresses/,
    ],
    [
      'a parameter name that is not a setting name',
      { version: '16', postgresql: { parameters: { 'Work-Mem': '8MB' } } },
      /spec\.postgresql\.parameters.*parameter names are lowercase PostgreSQL setting names/,
    ],
    [
      'a CPU that is not a quantity',
      { version: '16', resources: { limits: { cpu: 'two' } } },
      /spec\.resources\.limits\.cpu.*should match/,
    ],
  ])('fails synth for %s', (_name, spec, message) => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'bad', { metadata: { name: 'bad' }, spec });
    expect(() => Testing.synth(chart)).toThrow(message);
  });

  test('resources and parameters within the rules synthesize (custom settings, a request below its limit)', () => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'tuned', {
      metadata: { name: 'tuned' },
      spec: {
        version: '16',
        resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } },
        postgresql: { parameters: { work_mem: '8MB', 'pg_stat_statements.max': '1000' }, autoRestart: false },
      },
    });
    expect(() => Testing.synth(chart)).not.toThrow();
  });

  test('fails synth for a major version downgrade (transition rule with previous)', () => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'db', {
      metadata: { name: 'db' },
      spec: { version: '15.2' },
      previous: { spec: { version: '16.1' } },
    });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/db\].*spec\.version.*major version downgrades are not supported/,
    );
  });

  test('accepts a minor upgrade over the previous version', () => {
    const chart = chartWithCrd();
    new SampleDB(chart, 'db', {
      metadata: { name: 'db' },
      spec: { version: '16.4' },
      previous: { spec: { version: '16.1' } },
    });
    expect(() => Testing.synth(chart)).not.toThrow();
  });

  test('reports every bad example of an app together', () => {
    const app = new App({ outdir: '/tmp/unused' });
    const chart = new Chart(app, 'c');
    sampleDbCrd(chart);
    new SampleDB(chart, 'a', { metadata: { name: 'Bad_Name' }, spec: { version: '16' } });
    new SampleDB(chart, 'b', { metadata: { name: 'b' }, spec: { version: '16', replicas: 10 } });
    let message = '';
    try {
      app.synthYaml();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/\[c\/a\].*metadata\.name.*Bad_Name/);
    expect(message).toMatch(/\[c\/b\].*spec\.replicas/);
  });
});
