/**
 * The monitoring operator on a real kube-apiserver: prometheus-operator's CRDs as vendored (unchanged), the
 * operator running under exactly the RBAC its chart derives from MONITORING_CONTRACT (Secrets by name only),
 * and the cross-resource mapping: ServiceMonitor, PrometheusRule, Service/Endpoints and Namespace label changes
 * re-reconcile the Prometheus objects that select them (informer resync off, so only the mapping can do it).
 */
import * as fs from 'fs';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { MonitoringChart } from '../../../apps/monitoring/monitoring-chart';
import { MONITORING_CRD_DIR } from '../../../apps/monitoring/monitoring-crds';
import { MonitoringControllers, setupMonitoringControllers } from '../../../controllers/monitoring/controller';
import { Manager } from '../../../runtime/manager';
import { describeRealApiServer, FaultProxy } from '../../envtest';
import { sleep, testManager, until } from '../../runtime/support';

const T = 30_000;
const API = 'monitoring.coreos.com/v1';
const SELECT = { 'example.com/team': 'platform' };

describeRealApiServer(
  'monitoring operator',
  (plane) => {
    let proxy: FaultProxy;
    let manager: Manager;
    let controllers: MonitoringControllers;
    let promNs: string;
    let appNs: string;

    const req = async (method: string, path: string, body?: unknown) => {
      const r = await plane().request(
        method,
        path,
        body,
        method === 'PATCH' ? { contentType: 'application/merge-patch+json' } : {},
      );
      if (r.code >= 300 && !(method === 'GET' && r.code === 404)) {
        throw new Error(`${method} ${path}: ${r.code} ${JSON.stringify(r.body)}`);
      }
      return r.code === 404 ? undefined : r.body;
    };
    const cr = (ns: string, plural: string, name = '') =>
      `/apis/${API}/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
    const core = (ns: string, plural: string, name = '') =>
      `/api/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
    const config = async () => {
      const secret = await req('GET', core(promNs, 'secrets', 'prometheus-main'));
      return secret ? Buffer.from(secret.data['prometheus.yaml'], 'base64').toString('utf8') : '';
    };
    const targets = async () => (await req('GET', core(promNs, 'configmaps', 'prometheus-main-targets')))?.data ?? {};
    const writes = () =>
      proxy.requests.filter(
        (r) => ['create', 'update', 'patch', 'delete'].includes(r.verb) && !['leases', 'events'].includes(r.resource),
      );

    beforeAll(async () => {
      const crds = ['prometheuses', 'alertmanagers', 'servicemonitors', 'prometheusrules'].map((p) =>
        parse(fs.readFileSync(`${MONITORING_CRD_DIR}/monitoring.coreos.com_${p}.yaml`, 'utf8')),
      );
      await plane().installCrds(crds);
      promNs = await plane().createNamespace('mon-prom-');
      appNs = await plane().createNamespace('mon-app-', SELECT);
      // The operator's identity, bound to the ClusterRole the chart derives from its contract (and nothing else).
      const rbac = Testing.synth(new MonitoringChart(Testing.app(), 'monitoring'));
      const role = rbac.find((m) => m.kind === 'ClusterRole' && m.metadata.name === 'monitoring-operator-manager');
      await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        ...role,
        metadata: { name: 'test-monitoring-operator' },
      });
      await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'test-monitoring-operator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'test-monitoring-operator' },
        subjects: [{ kind: 'ServiceAccount', name: 'monitoring-operator', namespace: promNs }],
      });
      const identity = await plane().serviceAccount(promNs, 'monitoring-operator');
      proxy = await FaultProxy.start(plane());
      manager = testManager({ kubeConfig: proxy.kubeConfig(identity) });
      controllers = setupMonitoringControllers(manager, {
        reloaderImage: 'example.com/reloader:1',
        discovery: 'file',
        concurrency: 2,
      });
      await manager.start();
    }, 120_000);

    afterAll(async () => {
      await manager?.stop();
      await proxy?.close();
    });

    test("the upstream CRDs, unchanged, take the demo's objects; a Prometheus gets its configuration, rule files, targets and pods, all owned by it", async () => {
      await req('POST', core(appNs, 'services'), {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'app-metrics', labels: { app: 'app' } },
        spec: { ports: [{ name: 'metrics', port: 8080 }] },
      });
      await req('POST', core(appNs, 'endpoints'), {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'app-metrics' },
        subsets: [
          {
            addresses: [{ ip: '10.0.0.7', targetRef: { kind: 'Pod', name: 'app-0', namespace: appNs } }],
            ports: [{ name: 'metrics', port: 8080 }],
          },
        ],
      });
      await req('POST', cr(appNs, 'servicemonitors'), {
        apiVersion: API,
        kind: 'ServiceMonitor',
        metadata: { name: 'app', labels: SELECT },
        spec: { selector: { matchLabels: { app: 'app' } }, endpoints: [{ port: 'metrics', interval: '10s' }] },
      });
      await req('POST', cr(appNs, 'prometheusrules'), {
        apiVersion: API,
        kind: 'PrometheusRule',
        metadata: { name: 'app', labels: SELECT },
        spec: {
          groups: [
            { name: 'app.rules', rules: [{ alert: 'AppDown', expr: 'absent(up{job="app-metrics"} == 1)', for: '1m' }] },
          ],
        },
      });
      const prometheus = await req('POST', cr(promNs, 'prometheuses'), {
        apiVersion: API,
        kind: 'Prometheus',
        metadata: { name: 'main' },
        spec: {
          replicas: 1,
          serviceMonitorSelector: { matchLabels: SELECT },
          serviceMonitorNamespaceSelector: { matchLabels: SELECT },
          ruleSelector: { matchLabels: SELECT },
          ruleNamespaceSelector: { matchLabels: SELECT },
        },
      });

      // The status is written last: once it says Reconciled with both objects, every child has been applied. A first
      // reconcile may run before the PrometheusRule reached the operator's cache (a CI run saw "0 PrometheusRules"); the
      // rule's event must then bring it in, so wait for the message, not the first Reconciled.
      const CONFIGURED = '1 ServiceMonitors (selecting 1 Services) and 1 PrometheusRules in the configuration';
      const reconciled = await until(
        `Reconciled: ${CONFIGURED}`,
        async () => {
          const conditions = (await req('GET', cr(promNs, 'prometheuses', 'main'))).status?.conditions;
          return conditions?.find((c: any) => c.type === 'Reconciled' && c.message === CONFIGURED);
        },
        T,
      );
      expect(reconciled).toMatchObject({
        status: 'True',
        message: CONFIGURED,
      });
      expect(await config()).toContain(`job_name: serviceMonitor/${appNs}/app/0`);
      expect(JSON.parse((await targets())[`serviceMonitor_${appNs}_app_0.json`])).toStrictEqual([
        {
          targets: ['10.0.0.7:8080'],
          labels: expect.objectContaining({
            __meta_kubernetes_service_name: 'app-metrics',
            __meta_kubernetes_pod_name: 'app-0',
          }),
        },
      ]);
      const rules = (await req('GET', core(promNs, 'configmaps', 'prometheus-main-rulefiles-0'))).data;
      expect(Object.values(rules).join('\n')).toContain('alert: AppDown');
      const owner = {
        apiVersion: API,
        kind: 'Prometheus',
        name: 'main',
        uid: prometheus.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      for (const path of [
        core(promNs, 'secrets', 'prometheus-main'),
        core(promNs, 'configmaps', 'prometheus-main-rulefiles-0'),
        core(promNs, 'configmaps', 'prometheus-main-targets'),
        core(promNs, 'services', 'prometheus-main'),
        `/apis/apps/v1/namespaces/${promNs}/statefulsets/prometheus-main`,
      ]) {
        expect({ path, owners: (await req('GET', path))?.metadata.ownerReferences }).toStrictEqual({
          path,
          owners: [owner],
        });
      }
      const sts = await req('GET', `/apis/apps/v1/namespaces/${promNs}/statefulsets/prometheus-main`);
      expect(sts.spec.template.spec.containers.map((c: any) => c.name)).toStrictEqual([
        'prometheus',
        'config-reloader',
      ]);
      const sm = await until(
        'binding Accepted',
        async () => (await req('GET', cr(appNs, 'servicemonitors', 'app'))).status?.bindings,
      );
      expect(sm).toStrictEqual([
        {
          group: 'monitoring.coreos.com',
          resource: 'prometheuses',
          name: 'main',
          namespace: promNs,
          conditions: [expect.objectContaining({ type: 'Accepted', status: 'True' })],
        },
      ]);

      // Steady state: nothing changes, nothing is written (the Secret is compared after one GET, the rest from the caches).
      await sleep(500);
      const before = writes().length;
      await req('PATCH', cr(promNs, 'prometheuses', 'main'), { metadata: { annotations: { poke: '1' } } }); // a reconcile with nothing to do
      await sleep(1000);
      expect(writes().slice(before)).toStrictEqual([]);
    }, 60_000);

    test('Endpoints, ServiceMonitor and namespace label changes reach the Prometheus through the index (no resync, no scan)', async () => {
      // a new pod address: Endpoints → Service → ServiceMonitor → Prometheus
      await req('PATCH', core(appNs, 'endpoints', 'app-metrics'), {
        subsets: [{ addresses: [{ ip: '10.0.0.7' }, { ip: '10.0.0.8' }], ports: [{ name: 'metrics', port: 8080 }] }],
      });
      await until(
        'second target',
        async () => ((await targets())[`serviceMonitor_${appNs}_app_0.json`] ?? '').includes('10.0.0.8:8080'),
        T,
      );

      // a second ServiceMonitor
      await req('POST', cr(appNs, 'servicemonitors'), {
        apiVersion: API,
        kind: 'ServiceMonitor',
        metadata: { name: 'app2', labels: SELECT },
        spec: { selector: { matchLabels: { app: 'app' } }, endpoints: [{ port: 'metrics' }] },
      });
      await until('second job', async () => (await config()).includes(`job_name: serviceMonitor/${appNs}/app2/0`), T);

      // the namespace relabelled out of serviceMonitorNamespaceSelector: both jobs go (the old labels map the event)
      await req('PATCH', `/api/v1/namespaces/${appNs}`, { metadata: { labels: { 'example.com/team': null } } });
      await until('jobs gone', async () => !(await config()).includes(`serviceMonitor/${appNs}/`), T);
      expect(await config()).not.toContain('rule_files:\n  - ""');
      // and back in
      await req('PATCH', `/api/v1/namespaces/${appNs}`, { metadata: { labels: SELECT } });
      await until('jobs back', async () => (await config()).includes(`job_name: serviceMonitor/${appNs}/app/0`), T);

      // the mapping evaluated a handful of selectors per event, not every Prometheus (there is one here; see the unit test for 1,000)
      expect(controllers.mapping.prometheuses.evaluations).toBeGreaterThan(0);
    }, 60_000);

    test('fields outside the supported subset set a condition instead of being ignored', async () => {
      await req('POST', cr(appNs, 'servicemonitors'), {
        apiVersion: API,
        kind: 'ServiceMonitor',
        metadata: { name: 'with-joblabel', labels: SELECT },
        spec: {
          jobLabel: 'app',
          selector: { matchLabels: { app: 'app' } },
          endpoints: [{ port: 'metrics', params: { format: ['prometheus'] } }],
        },
      });
      const binding = await until(
        'rejected binding',
        async () =>
          (await req('GET', cr(appNs, 'servicemonitors', 'with-joblabel'))).status?.bindings?.[0]?.conditions?.[0],
      );
      expect(binding).toMatchObject({ type: 'Accepted', status: 'False', reason: 'UnsupportedFields' });
      expect(binding.message).toContain('spec.jobLabel');
      expect(binding.message).toContain('spec.endpoints[0].params');
      expect(await config()).not.toContain('with-joblabel');
      // the binding and the Prometheus' condition are two status writes of one reconcile: the second may land later
      const reconciled = await until('Reconciled: SomeRejected', async () => {
        const c = (await req('GET', cr(promNs, 'prometheuses', 'main'))).status?.conditions?.find(
          (x: any) => x.type === 'Reconciled',
        );
        return c?.reason === 'SomeRejected' ? c : undefined;
      });
      expect(reconciled).toMatchObject({ status: 'True', reason: 'SomeRejected' });

      await req('POST', cr(promNs, 'prometheuses'), {
        apiVersion: API,
        kind: 'Prometheus',
        metadata: { name: 'admin' },
        spec: { enableAdminAPI: true, serviceMonitorSelector: {} },
      });
      const cond = await until('Reconciled=False', async () =>
        (await req('GET', cr(promNs, 'prometheuses', 'admin'))).status?.conditions?.find(
          (c: any) => c.type === 'Reconciled',
        ),
      );
      expect(cond).toMatchObject({ status: 'False', reason: 'UnsupportedFields' });
      expect(cond.message).toContain('spec.enableAdminAPI');
      expect(await req('GET', `/apis/apps/v1/namespaces/${promNs}/statefulsets/prometheus-admin`)).toBeUndefined();
    }, 60_000);
  },
  { shared: true },
);
