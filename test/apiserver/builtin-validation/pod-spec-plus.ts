import { App, Chart, Cron, Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';

/**
 * Workloads as cdk8s-plus-28 writes them (env from values, ConfigMaps, Secrets and the downward API; probes of the
 * three kinds; resources; mounted volumes; its default security contexts): what users of the repository synth most.
 */
export function plusWorkloads(): any[] {
  const chart = new Chart(new App(), 'c');
  const cm = new kplus.ConfigMap(chart, 'cm', { data: { k: 'v' } });
  const secret = new kplus.Secret(chart, 's', { stringData: { k: 'v' } });
  const d = new kplus.Deployment(chart, 'd', { replicas: 2 });
  const c = d.addContainer({
    name: 'app',
    image: 'nginx:1.27',
    portNumber: 8080,
    envVariables: {
      A: kplus.EnvValue.fromValue('1'),
      B: kplus.EnvValue.fromConfigMap(cm, 'k'),
      C: kplus.EnvValue.fromSecretValue({ secret, key: 'k' }),
      D: kplus.EnvValue.fromFieldRef(kplus.EnvFieldPaths.POD_NAME),
    },
    liveness: kplus.Probe.fromHttpGet('/healthz', { port: 8080 }),
    readiness: kplus.Probe.fromTcpSocket({ port: 8080 }),
    startup: kplus.Probe.fromCommand(['true']),
    resources: {
      cpu: { request: kplus.Cpu.millis(100), limit: kplus.Cpu.units(1) },
      memory: { request: Size.mebibytes(64), limit: Size.mebibytes(128) },
    },
  });
  c.mount('/config', kplus.Volume.fromConfigMap(chart, 'cmv', cm));
  c.mount('/secret', kplus.Volume.fromSecret(chart, 'sv', secret));
  c.mount('/scratch', kplus.Volume.fromEmptyDir(chart, 'tmp', 'tmp', { sizeLimit: Size.gibibytes(1) }));
  new kplus.Job(chart, 'j', {
    containers: [{ image: 'busybox', command: ['true'] }],
    activeDeadline: Duration.minutes(5),
  });
  new kplus.CronJob(chart, 'cj', { schedule: Cron.daily(), containers: [{ image: 'busybox' }] });
  new kplus.StatefulSet(chart, 'ss', { containers: [{ image: 'redis', portNumber: 6379 }] });
  new kplus.DaemonSet(chart, 'ds', { containers: [{ image: 'fluentd' }] });
  return chart
    .toJson()
    .filter((o: any) => ['Deployment', 'Job', 'CronJob', 'StatefulSet', 'DaemonSet'].includes(o.kind));
}

/** Where each workload kind holds its pod template, and the restart policies it allows. */
export function templateOf(o: any): { template: any; path: string; restartPolicies: string[] } {
  if (o.kind === 'CronJob') {
    return {
      template: o.spec.jobTemplate.spec.template,
      path: 'spec.jobTemplate.spec.template',
      restartPolicies: ['OnFailure', 'Never'],
    };
  }
  return {
    template: o.spec.template,
    path: 'spec.template',
    restartPolicies: o.kind === 'Job' ? ['OnFailure', 'Never'] : ['Always'],
  };
}
