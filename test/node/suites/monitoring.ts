/**
 * The monitoring operator on the real single-node cluster (a suite of test/node/run.ts; issue 22's "Done when"):
 * the demo's Prometheus (dist/, applied as dist/APPLY.md says) scrapes the SampleDB and Foo operators through
 * their ServiceMonitors and evaluates their PrometheusRules; promtool (in the Prometheus image) accepts every
 * file the operator generated, as mounted in the pod; a new ServiceMonitor becomes a target within 60 s with the
 * same Prometheus pod (no restart, the reload succeeded); scaling the demo's Foo controller to 0 fires its down
 * alert (its `for` shortened on the cluster for the wait), which Alertmanager delivers to the in-cluster receiver; a
 * namespace relabelled out of the selector drops its targets; deleting a Prometheus object removes everything it owned.
 *
 * The down alert is the Foo controller's, not the SampleDB operator's: both come from the same construct
 * (lib/operator/operator-monitoring.ts: `absent(up{job,namespace} == 1)`, the same routing), and test/node/run.ts runs
 * this suite beside the SampleDB suites, which need their operator up. Both alerts are seen inactive while their
 * operators are up (their job label is the scraped one) before the Foo controller is stopped.
 *
 * Prometheus, Alertmanager and the receiver are read through the apiserver's service proxy, as a user with
 * kubectl would. The suite uses its own namespace `monitoring-e2e`, restores the Foo controller's replicas and
 * leaves the demo's Prometheus and Alertmanager running.
 */
import { DEMO_MONITORING_LABELS } from '../../../apps/monitoring/monitoring-chart';
import { controllerImage } from '../../../controllers/images';
import { NodeHarness, assert, until, untilBound } from '../harness';

const MON = 'monitoring';
const E2E = 'monitoring-e2e';
const SAMPLEDB_NS = 'sampledb-operator-system';
const [LABEL_KEY, LABEL_VALUE] = Object.entries(DEMO_MONITORING_LABELS)[0];
/** The demo's Foo controller: its Deployment and PrometheusRule (named after it) and its scrape pool. */
const FOO_NS = 'foo-controller-system';
const FOO = 'foo-controller';
const FOO_POOL = `serviceMonitor/${FOO_NS}/${FOO}/0`;
/** The alert the Foo controller's PrometheusRule fires when its metrics endpoint is gone (lib/operator/operator-monitoring.ts). */
const DOWN_ALERT = 'FooControllerDown';
/** The `for` the suite gives that alert while it waits for it (the shipped rule says 5m), in Prometheus' units and in seconds as /api/v1/rules reports it. */
const DOWN_FOR = '30s';
const DOWN_FOR_SECONDS = 30;

interface Target {
  labels: Record<string, string>;
  scrapePool: string;
  health: string;
  lastError: string;
}

export default async function monitoring(h: NodeHarness): Promise<void> {
  const step = h.step.bind(h);
  const raw = (path: string): any => JSON.parse(h.kubectl('get', '--raw', path));
  const prom = (path: string): any => raw(`/api/v1/namespaces/${MON}/services/prometheus-main:web/proxy${path}`);
  const targets = (): Target[] => prom('/api/v1/targets?state=active').data.activeTargets;
  const query = (q: string): any[] => prom(`/api/v1/query?query=${encodeURIComponent(q)}`).data.result;
  const promPod = () => h.json('get', 'pod', 'prometheus-main-0', '-n', MON);
  /** A metric of Prometheus' own /metrics (it does not scrape itself here). */
  const promMetric = (name: string): number => {
    const text = h.kubectl('get', '--raw', `/api/v1/namespaces/${MON}/services/prometheus-main:web/proxy/metrics`);
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    assert(line, `${name} not in Prometheus' /metrics`);
    return Number(line.split(' ')[1]);
  };
  let promUid = '';

  await step('dist/ applied as dist/APPLY.md says (the monitoring stack with the operators)', () =>
    h.ensureDistApplied(),
  );

  await step('the monitoring operator runs Prometheus and Alertmanager for the demo objects', async () => {
    await until(
      'prometheus-main and alertmanager-main ready',
      () =>
        ['prometheus-main', 'alertmanager-main'].every(
          (s) => (h.json('get', 'statefulset', s, '-n', MON).status?.readyReplicas ?? 0) >= 1,
        ),
      240,
      2000,
    );
    const p = h.json('get', 'prometheus', 'main', '-n', MON);
    const reconciled = (p.status?.conditions ?? []).find((c: any) => c.type === 'Reconciled');
    assert(reconciled?.status === 'True', `Prometheus main Reconciled: ${JSON.stringify(reconciled)}`);
    promUid = promPod().metadata.uid;
    return reconciled.message;
  });

  await step(
    'Prometheus scrapes the SampleDB and Foo operators through their ServiceMonitors: both targets up, job = the metrics Service',
    async () => {
      const want: Record<string, { job: string; namespace: string }> = {
        [`serviceMonitor/${SAMPLEDB_NS}/sampledb-operator/0`]: {
          job: 'sampledb-operator-metrics',
          namespace: SAMPLEDB_NS,
        },
        [FOO_POOL]: { job: 'foo-controller-metrics', namespace: FOO_NS },
      };
      const found = await until(
        'both operator targets up',
        () => {
          const ts = targets();
          const up = Object.keys(want).map((pool) => ts.find((t) => t.scrapePool === pool && t.health === 'up'));
          return up.every(Boolean) ? up : undefined;
        },
        120,
        2000,
      );
      for (const t of found) {
        const w = want[t!.scrapePool];
        assert(
          t!.labels.job === w.job && t!.labels.namespace === w.namespace,
          `labels of ${t!.scrapePool}: ${JSON.stringify(t!.labels)}`,
        );
      }
      return found.map((t) => `${t!.scrapePool} up (job=${t!.labels.job}, pod=${t!.labels.pod})`).join('; ');
    },
  );

  await step(
    "the PrometheusRules' groups are loaded and evaluate; no operator-down alert while the operators are up (their job label matches)",
    async () => {
      const groups = await until(
        'rule groups',
        () => {
          const gs: any[] = prom('/api/v1/rules').data.groups;
          return ['sampledb-operator.rules', 'foo-controller.rules'].every((n) =>
            gs.some(
              (g) =>
                g.name === n &&
                g.rules.every((r: any) => r.health === 'ok' && r.lastEvaluation !== '0001-01-01T00:00:00Z'),
            ),
          )
            ? gs
            : undefined;
        },
        90,
        2000,
      );
      const downAlerts = (gs: any[]) =>
        gs.flatMap((g: any) => g.rules).filter((r: any) => /OperatorDown$|ControllerDown$/.test(r.name));
      assert(downAlerts(groups).length >= 2, `down alerts: ${downAlerts(groups).map((r: any) => r.name)}`);
      // Evaluated before the first scrape, absent(up{job=...} == 1) is true and the alert pending; once the targets are
      // up it must turn inactive at the next evaluation (15 s), which it only does when its job label is the scraped one.
      const down = await until(
        'every operator-down alert inactive',
        () => {
          const d = downAlerts(prom('/api/v1/rules').data.groups);
          return d.every((r: any) => r.state === 'inactive') ? d : undefined;
        },
        60,
        2000,
      );
      return `${groups.length} groups, ${groups.reduce((n: number, g: any) => n + g.rules.length, 0)} rules healthy; ${down.map((r: any) => `${r.name} inactive`).join(', ')}`;
    },
  );

  await step(
    "the SampleDB operator's per-database metrics keep the database's namespace (honorLabels), as its alerts group by it",
    async () => {
      const series = await until(
        'sampledb_replicas_desired of my-db',
        () =>
          query('sampledb_replicas_desired{name="my-db"}')
            .map((r: any) => r.metric)
            .find(Boolean),
        120,
        2000,
      );
      assert(series.namespace === 'default' && !('exported_namespace' in series), `labels: ${JSON.stringify(series)}`);
      return `sampledb_replicas_desired{${Object.entries(series)
        .map(([k, v]) => `${k}="${v}"`)
        .join(',')}}`;
    },
  );

  await step("promtool (the Prometheus image's) accepts every generated file, as mounted in the pod", () => {
    const inPod = ['-n', MON, 'prometheus-main-0', '-c', 'prometheus', '--'];
    // promtool's verdicts are read from both streams (it reports FAILED on stderr); listings from stdout alone.
    const exec = (...args: string[]) => h.kubectl('exec', ...inPod, ...args);
    const listing = (command: string) => h.exec(...inPod, 'sh', '-c', command).trim();
    const config = exec('promtool', 'check', 'config', '/etc/prometheus/config/prometheus.yaml');
    assert(/SUCCESS/.test(config) && !/WARNING|FAILED/.test(config), config);
    const files = listing('ls /etc/prometheus/rules/prometheus-main-rulefiles-0/*.yaml').split('\n');
    const rules = exec('promtool', 'check', 'rules', ...files);
    assert((rules.match(/SUCCESS/g) ?? []).length === files.length && !/FAILED/.test(rules), rules);
    return `check config: SUCCESS (with ${listing('ls /etc/prometheus/targets | wc -l')} targets files); check rules: ${files.length} files SUCCESS`;
  });

  // The shipped down alert waits `for: 5m`. Waiting that out would cost CI five minutes of an idle cluster, so the
  // suite shortens the `for` of that very rule object (same expression, labels and routing) to DOWN_FOR and puts the
  // shipped value back afterwards. The operator is scaled down now and the alert checked after the other steps.
  const rule = h.json('get', 'prometheusrule', FOO, '-n', FOO_NS);
  const ruleIndex = rule.spec.groups[0].rules.findIndex((r: any) => r.alert === DOWN_ALERT);
  assert(ruleIndex >= 0, `${DOWN_ALERT} not in PrometheusRule ${FOO}: ${JSON.stringify(rule.spec.groups)}`);
  const shippedFor: string = rule.spec.groups[0].rules[ruleIndex].for;
  const setFor = (value: string) =>
    h.kubectl(
      'patch',
      'prometheusrule',
      FOO,
      '-n',
      FOO_NS,
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'replace', path: `/spec/groups/0/rules/${ruleIndex}/for`, value }]),
    );
  const ruleDuration = () =>
    prom('/api/v1/rules')
      .data.groups.flatMap((g: any) => g.rules)
      .find((r: any) => r.name === DOWN_ALERT)?.duration;
  const fooReplicas = h.json('get', 'deployment', FOO, '-n', FOO_NS).spec.replicas ?? 1;
  let scaledAt = 0;
  try {
    setFor(DOWN_FOR);
    await until(`${DOWN_ALERT} loaded with for: ${DOWN_FOR}`, () => ruleDuration() === DOWN_FOR_SECONDS, 90, 2000);
    scaledAt = Date.now();
    h.kubectl('scale', 'deployment', FOO, '-n', FOO_NS, '--replicas=0');

    await step(
      'a new ServiceMonitor becomes a target within 60 s; same Prometheus pod, restartCount 0, last reload successful',
      async () => {
        h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: E2E, labels: { [LABEL_KEY]: LABEL_VALUE } } });
        const labels = { 'app.kubernetes.io/name': 'e2e-metrics' };
        h.apply(
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'e2e-metrics', namespace: E2E, labels },
            spec: {
              replicas: 1,
              selector: { matchLabels: labels },
              template: {
                metadata: { labels },
                spec: {
                  automountServiceAccountToken: false,
                  securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
                  containers: [
                    {
                      name: 'receiver',
                      image: controllerImage('monitoring'),
                      imagePullPolicy: 'IfNotPresent',
                      command: ['/nodejs/bin/node', '/app/receiver.js', '--port=8080'],
                      ports: [{ name: 'metrics', containerPort: 8080 }],
                      readinessProbe: { httpGet: { path: '/healthz', port: 'metrics' }, periodSeconds: 2 },
                      securityContext: {
                        allowPrivilegeEscalation: false,
                        readOnlyRootFilesystem: true,
                        capabilities: { drop: ['ALL'] },
                      },
                    },
                  ],
                },
              },
            },
          },
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'e2e-metrics', namespace: E2E, labels },
            spec: { selector: labels, ports: [{ name: 'metrics', port: 8080, targetPort: 'metrics' }] },
          },
        );
        await until(
          'e2e-metrics ready',
          () => (h.json('get', 'deployment', 'e2e-metrics', '-n', E2E).status?.availableReplicas ?? 0) >= 1,
          120,
          1000,
        );
        const reloadedBefore = promMetric('prometheus_config_last_reload_success_timestamp_seconds');
        const created = Date.now();
        h.apply({
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'ServiceMonitor',
          metadata: { name: 'e2e', namespace: E2E, labels: { [LABEL_KEY]: LABEL_VALUE } },
          spec: { selector: { matchLabels: labels }, endpoints: [{ port: 'metrics', interval: '5s' }] },
        });
        const target = await untilBound(
          'the new target up',
          () => targets().find((t) => t.scrapePool === `serviceMonitor/${E2E}/e2e/0` && t.health === 'up'),
          60,
          1000,
        );
        const seconds = (Date.now() - created) / 1000;
        const pod = promPod();
        assert(pod.metadata.uid === promUid, `the Prometheus pod was replaced (${promUid} → ${pod.metadata.uid})`);
        const restarts = pod.status.containerStatuses.map((c: any) => `${c.name}=${c.restartCount}`);
        assert(
          pod.status.containerStatuses.every((c: any) => c.restartCount === 0),
          `restarts: ${restarts}`,
        );
        const successful = promMetric('prometheus_config_last_reload_successful');
        const reloadedAt = promMetric('prometheus_config_last_reload_success_timestamp_seconds');
        assert(successful === 1, `prometheus_config_last_reload_successful ${successful}`);
        assert(
          reloadedAt > reloadedBefore,
          `no reload since the ServiceMonitor was created (last successful reload at ${reloadedAt}, before it ${reloadedBefore})`,
        );
        assert(target.labels.job === 'e2e-metrics', `job label ${target.labels.job}`);
        return `up after ${seconds.toFixed(1)} s (job=${target.labels.job}); pod ${pod.metadata.name} unchanged, ${restarts.join(', ')}; prometheus_config_last_reload_successful 1, reloaded ${(reloadedAt - created / 1000).toFixed(1)} s after the create`;
      },
    );

    await step('a namespace relabelled out of the selector drops its targets', async () => {
      h.kubectl('label', 'namespace', E2E, `${LABEL_KEY}-`);
      const started = Date.now();
      await until(
        'the e2e target gone',
        () => !targets().some((t) => t.scrapePool.startsWith(`serviceMonitor/${E2E}/`)),
        90,
        1000,
      );
      const config = Buffer.from(
        h.json('get', 'secret', 'prometheus-main', '-n', MON).data['prometheus.yaml'],
        'base64',
      ).toString();
      assert(!config.includes(`serviceMonitor/${E2E}/`), 'the job is still in the configuration');
      return `gone after ${((Date.now() - started) / 1000).toFixed(1)} s; the job left the configuration`;
    });

    await step('deleting a Prometheus object removes everything it owned', async () => {
      h.apply({
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'Prometheus',
        metadata: { name: 'e2e', namespace: E2E },
        spec: {
          replicas: 1,
          serviceAccountName: 'default',
          serviceMonitorSelector: { matchLabels: { none: 'none' } },
          resources: { requests: { cpu: '10m', memory: '64Mi' } },
        },
      });
      const owned = [
        'statefulset/prometheus-e2e',
        'service/prometheus-e2e',
        'secret/prometheus-e2e',
        'configmap/prometheus-e2e-rulefiles-0',
        'configmap/prometheus-e2e-targets',
      ];
      await until('its children', () => owned.every((o) => h.exists(o, '-n', E2E)), 60, 1000);
      await until('its pod running', () => h.exists('pod/prometheus-e2e-0', '-n', E2E), 60, 1000);
      h.kubectl('delete', 'prometheus', 'e2e', '-n', E2E, '--wait=true');
      const started = Date.now();
      await until(
        'every child gone',
        () => owned.every((o) => !h.exists(o, '-n', E2E)) && !h.exists('pod/prometheus-e2e-0', '-n', E2E),
        120,
        1000,
      );
      return `${owned.join(', ')} and pod prometheus-e2e-0 removed by the garbage collector ${((Date.now() - started) / 1000).toFixed(1)} s after the delete`;
    });

    await step(
      `scaling the Foo controller to 0 fires ${DOWN_ALERT}; Alertmanager delivers it to the in-cluster receiver`,
      async () => {
        await until(
          `${DOWN_ALERT} firing in Prometheus`,
          () =>
            prom('/api/v1/alerts').data.alerts.find(
              (a: any) => a.labels.alertname === DOWN_ALERT && a.state === 'firing',
            ),
          180,
          2000,
        );
        const firing = (Date.now() - scaledAt) / 1000;
        await until(
          'in Alertmanager',
          () =>
            raw(`/api/v1/namespaces/${MON}/services/alertmanager-main:web/proxy/api/v2/alerts`).some(
              (a: any) => a.labels.alertname === DOWN_ALERT,
            ),
          60,
          2000,
        );
        const note = await until(
          'delivered to the receiver',
          () =>
            raw(`/api/v1/namespaces/${MON}/services/alert-receiver:http/proxy/alerts`).find(
              (n: any) =>
                n.status === 'firing' &&
                Date.parse(n.receivedAt) > scaledAt &&
                (n.alerts ?? []).some((a: any) => a.labels?.alertname === DOWN_ALERT),
            ),
          60,
          2000,
        );
        return `firing ${firing.toFixed(0)} s after the scale-down (for: ${DOWN_FOR}, shipped ${shippedFor}); received by alert-receiver at ${note.receivedAt} (receiver ${note.receiver})`;
      },
    );
  } finally {
    h.kubectl('scale', 'deployment', FOO, '-n', FOO_NS, `--replicas=${fooReplicas}`);
    setFor(shippedFor);
    h.kubectl('delete', 'namespace', E2E, '--ignore-not-found', '--wait=false');
  }

  await step(
    'the Foo controller is back (replicas restored) and scraped again; its down alert has the shipped for again',
    async () => {
      await until(
        'available',
        () => (h.json('get', 'deployment', FOO, '-n', FOO_NS).status?.availableReplicas ?? 0) >= fooReplicas,
        120,
        2000,
      );
      await until('target up', () => targets().some((t) => t.scrapePool === FOO_POOL && t.health === 'up'), 120, 2000);
      const shippedSeconds = await until(
        `${DOWN_ALERT} back to the shipped for: ${shippedFor}`,
        () => {
          const d = ruleDuration();
          return d !== undefined && d !== DOWN_FOR_SECONDS ? d : undefined;
        },
        90,
        2000,
      );
      return `${fooReplicas} replica(s) available, target up; ${DOWN_ALERT} evaluated with for: ${shippedSeconds} s again`;
    },
  );
}
