/**
 * The differential cases of batch/v1's own fields: a valid Job and CronJob and one mutation each, the pod template
 * kept valid (its own checks are the pod spec suite's).
 */

export type Case = readonly [name: string, object: any];

const podTemplate = (restartPolicy = 'Never') => ({
  metadata: { labels: { app: 'batch' } },
  spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox' }] },
});
const job = () => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'work' },
  spec: { template: podTemplate() },
});
const cronJob = () => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'nightly' },
  spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } },
});

function variant(base: () => any, change: (o: any) => void): any {
  const o = base();
  change(o);
  return o;
}

const j = (name: string, change: (o: any) => void): Case => [`Job: ${name}`, variant(job, change)];
const c = (name: string, change: (o: any) => void): Case => [`CronJob: ${name}`, variant(cronJob, change)];
/** The same JobSpec mutation on a Job's spec and on a CronJob's job template's. */
const both = (name: string, change: (spec: any) => void): Case[] => [
  j(name, (o) => change(o.spec)),
  c(`jobTemplate ${name}`, (o) => change(o.spec.jobTemplate.spec)),
];

const exitRule = (extra: any = {}) => ({
  action: 'FailJob',
  onExitCodes: { operator: 'In', values: [1, 2] },
  ...extra,
});

const JOB_SPEC: Case[] = [
  ['Job: valid', job()],
  ['CronJob: valid', cronJob()],
  ...['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'].flatMap((f) => [
    ...both(`${f} -1`, (s) => (s[f] = -1)),
    ...both(`${f} 0`, (s) => (s[f] = 0)),
  ]),
  ...both('parallelism 5 without completions', (s) => (s.parallelism = 5)),
  ...both('completionMode Indexed without completions', (s) => (s.completionMode = 'Indexed')),
  ...both('completionMode Indexed with completions', (s) =>
    Object.assign(s, { completionMode: 'Indexed', completions: 3 }),
  ),
  ...both('completionMode Bogus', (s) => (s.completionMode = 'Bogus')),
  ...both('Indexed parallelism 100001', (s) =>
    Object.assign(s, { completionMode: 'Indexed', completions: 3, parallelism: 100001 }),
  ),
  ...both('backoffLimitPerIndex on NonIndexed', (s) => (s.backoffLimitPerIndex = 1)),
  ...both('backoffLimitPerIndex -1 on Indexed', (s) =>
    Object.assign(s, { completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: -1 }),
  ),
  ...both('backoffLimitPerIndex on Indexed', (s) =>
    Object.assign(s, { completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1 }),
  ),
  ...both('maxFailedIndexes without backoffLimitPerIndex', (s) =>
    Object.assign(s, { completionMode: 'Indexed', completions: 3, maxFailedIndexes: 1 }),
  ),
  ...both('maxFailedIndexes above completions', (s) =>
    Object.assign(s, { completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1, maxFailedIndexes: 4 }),
  ),
  ...both('podFailurePolicy valid', (s) => (s.podFailurePolicy = { rules: [exitRule()] })),
  ...both('podFailurePolicy with restartPolicy OnFailure', (s) => {
    s.podFailurePolicy = { rules: [exitRule()] };
    s.template.spec.restartPolicy = 'OnFailure';
  }),
  ...both(
    'podFailurePolicy rule without action',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ action: undefined })] }),
  ),
  ...both('podFailurePolicy unknown action', (s) => (s.podFailurePolicy = { rules: [exitRule({ action: 'Retry' })] })),
  ...both(
    'podFailurePolicy FailIndex without backoffLimitPerIndex',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ action: 'FailIndex' })] }),
  ),
  ...both('podFailurePolicy FailIndex with backoffLimitPerIndex', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1 });
    s.podFailurePolicy = { rules: [exitRule({ action: 'FailIndex' })] };
  }),
  ...both('podFailurePolicy Count', (s) => (s.podFailurePolicy = { rules: [exitRule({ action: 'Count' })] })),
  ...both('podFailurePolicy rule with neither', (s) => (s.podFailurePolicy = { rules: [{ action: 'Ignore' }] })),
  ...both(
    'podFailurePolicy rule with both',
    (s) =>
      (s.podFailurePolicy = { rules: [exitRule({ onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] })] }),
  ),
  ...both(
    'podFailurePolicy exit code 0 with In',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ onExitCodes: { operator: 'In', values: [0, 1] } })] }),
  ),
  ...both(
    'podFailurePolicy exit code 0 with NotIn',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ onExitCodes: { operator: 'NotIn', values: [0] } })] }),
  ),
  ...both(
    'podFailurePolicy exit codes unordered',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ onExitCodes: { operator: 'In', values: [3, 2] } })] }),
  ),
  ...both(
    'podFailurePolicy exit codes duplicated',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ onExitCodes: { operator: 'In', values: [2, 2] } })] }),
  ),
  ...both(
    'podFailurePolicy no exit codes',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ onExitCodes: { operator: 'In', values: [] } })] }),
  ),
  ...both(
    'podFailurePolicy bad operator',
    (s) => (s.podFailurePolicy = { rules: [exitRule({ onExitCodes: { operator: 'Equals', values: [1] } })] }),
  ),
  ...both(
    'podFailurePolicy unknown container',
    (s) =>
      (s.podFailurePolicy = {
        rules: [exitRule({ onExitCodes: { containerName: 'other', operator: 'In', values: [1] } })],
      }),
  ),
  ...both(
    'podFailurePolicy known container',
    (s) =>
      (s.podFailurePolicy = {
        rules: [exitRule({ onExitCodes: { containerName: 'c', operator: 'In', values: [1] } })],
      }),
  ),
  ...both(
    'podFailurePolicy condition without status',
    (s) => (s.podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] }),
  ),
  ...both(
    'podFailurePolicy condition bad status',
    (s) =>
      (s.podFailurePolicy = {
        rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] }],
      }),
  ),
  ...both(
    'podFailurePolicy condition bad type',
    (s) =>
      (s.podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'bad type', status: 'True' }] }] }),
  ),
  ...both(
    'podFailurePolicy 21 rules',
    (s) => (s.podFailurePolicy = { rules: Array.from({ length: 21 }, () => exitRule()) }),
  ),
  ...both('podReplacementPolicy Failed', (s) => (s.podReplacementPolicy = 'Failed')),
  ...both('podReplacementPolicy Bogus', (s) => (s.podReplacementPolicy = 'Bogus')),
  ...both('podReplacementPolicy TerminatingOrFailed with podFailurePolicy', (s) => {
    s.podReplacementPolicy = 'TerminatingOrFailed';
    s.podFailurePolicy = { rules: [exitRule()] };
  }),
];

/** Fields 1.28 does not know (its strict decoding refuses them): 1.32 and 1.36 only. */
export const NEWER_JOB_CASES: readonly Case[] = [
  // found by bench/builtin-differential.ts: an unsupported mode is reported alone
  ...both('completionMode UDP with backoffLimitPerIndex and maxFailedIndexes', (s) =>
    Object.assign(s, { completionMode: 'UDP', completions: 2, backoffLimitPerIndex: 1, maxFailedIndexes: 1 }),
  ),
  ...both('successPolicy on NonIndexed', (s) => (s.successPolicy = { rules: [{ succeededCount: 1 }] })),
  ...both('successPolicy valid', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{ succeededIndexes: '0-2,4', succeededCount: 2 }] };
  }),
  ...both('successPolicy no rules', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [] };
  }),
  ...both('successPolicy empty rule', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{}] };
  }),
  ...both('successPolicy count above completions', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{ succeededCount: 6 }] };
  }),
  ...both('successPolicy count above indexes', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{ succeededIndexes: '0-1', succeededCount: 3 }] };
  }),
  ...both('successPolicy index too large', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{ succeededIndexes: '5' }] };
  }),
  ...both('successPolicy indexes not increasing', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{ succeededIndexes: '3,1' }] };
  }),
  ...both('successPolicy indexes garbage', (s) => {
    Object.assign(s, { completionMode: 'Indexed', completions: 5 });
    s.successPolicy = { rules: [{ succeededIndexes: 'a-b' }] };
  }),
  ...both('managedBy valid', (s) => (s.managedBy = 'example.com/controller')),
  ...both('managedBy without domain', (s) => (s.managedBy = 'controller')),
  ...both('managedBy too long', (s) => (s.managedBy = `example.com/${'x'.repeat(60)}`)),
];

const JOB: Case[] = [
  // the name becomes a label value of the template, and of the Job when it has no labels of its own (found by
  // bench/builtin-differential.ts)
  j('a name of 64 characters', (o) => (o.metadata.name = 'a'.repeat(64))),
  j('a name of 64 characters, the Job labelled', (o) => {
    o.metadata.name = 'a'.repeat(64);
    o.metadata.labels = { app: 'batch' };
  }),
  j('a name of 64 characters, its own selector', (o) => {
    o.metadata.name = 'a'.repeat(64);
    Object.assign(o.spec, { manualSelector: true, selector: { matchLabels: { app: 'batch' } } });
  }),
  j('a name of 64 characters, no template labels', (o) => {
    o.metadata.name = 'a'.repeat(64);
    delete o.spec.template.metadata;
  }),
  j('a bad template label value, the Job unlabelled', (o) => (o.spec.template.metadata.labels.app = '-a')),
  j('a bad template label value, the Job labelled', (o) => {
    o.spec.template.metadata.labels.app = '-a';
    o.metadata.labels = { app: 'batch' };
  }),
  j('selector without manualSelector', (o) => (o.spec.selector = { matchLabels: { app: 'batch' } })),
  j('selector with manualSelector', (o) =>
    Object.assign(o.spec, { manualSelector: true, selector: { matchLabels: { app: 'batch' } } }),
  ),
  j('manualSelector without selector', (o) => (o.spec.manualSelector = true)),
  j('manualSelector false', (o) => (o.spec.manualSelector = false)),
  j('manual selector not matching', (o) =>
    Object.assign(o.spec, { manualSelector: true, selector: { matchLabels: { app: 'other' } } }),
  ),
  j('manual selector bad key', (o) =>
    Object.assign(o.spec, {
      manualSelector: true,
      selector: { matchLabels: { app: 'batch' }, matchExpressions: [{ key: 'a b', operator: 'Exists' }] },
    }),
  ),
  j('selector of the generated job-name', (o) => (o.spec.selector = { matchLabels: { 'job-name': 'work' } })),
  j(
    'selector DoesNotExist other',
    (o) => (o.spec.selector = { matchExpressions: [{ key: 'other', operator: 'DoesNotExist' }] }),
  ),
  j('template label job-name other', (o) => (o.spec.template.metadata.labels['job-name'] = 'other')),
  j('template label job-name own', (o) => (o.spec.template.metadata.labels['job-name'] = 'work')),
  j(
    'template label batch.kubernetes.io/job-name other',
    (o) => (o.spec.template.metadata.labels['batch.kubernetes.io/job-name'] = 'x'),
  ),
  j('template label controller-uid', (o) => (o.spec.template.metadata.labels['controller-uid'] = 'abc')),
  j('template without labels', (o) => delete o.spec.template.metadata),
  j('Indexed with a long name', (o) => {
    o.metadata.name = 'x'.repeat(62);
    Object.assign(o.spec, { completionMode: 'Indexed', completions: 10 });
  }),
  j('Indexed with a name just fitting', (o) => {
    o.metadata.name = 'x'.repeat(61);
    Object.assign(o.spec, { completionMode: 'Indexed', completions: 10 });
  }),
  j('NonIndexed with a long name', (o) => {
    o.metadata.name = 'x'.repeat(62);
    o.spec.completions = 10;
  }),
];

const schedule = (value: string) => c(`schedule ${JSON.stringify(value)}`, (o) => (o.spec.schedule = value));
const CRON_JOB: Case[] = [
  ...[
    'every day',
    '',
    '0 0 * * *',
    '@hourly',
    '@daily',
    '@midnight',
    '@weekly',
    '@monthly',
    '@yearly',
    '@annually',
    '@reboot',
    '@Daily',
    '@every 1h30m',
    '@every 5',
    '@every 1d',
    '@every abc',
    '@every',
    '* * * *',
    '* * * * * *',
    '60 * * * *',
    '* 24 * * *',
    '* * 0 * *',
    '* * 32 * *',
    '* * * 13 *',
    '* * * 0 *',
    '* * * * 7',
    '* * * jan-mar mon-fri',
    '* * * JAN SUN',
    '*/0 * * * *',
    '5-1 * * * *',
    '1-2-3 * * * *',
    '*/5/2 * * * *',
    'a * * * *',
    '-1 * * * *',
    '?/5 * * * *',
    '0 0 L * *',
    '0 0 1,15 * *',
    '0 0 ,1 * *',
    '5/15 * * * *',
    'TZ=UTC 0 * * * *',
    'CRON_TZ=Europe/Berlin 0 * * * *',
    'TZ=Mars/Olympus 0 * * * *',
    '0  0 * *  *',
    '\t0 0 * * *',
    '@daily ',
    ' @daily',
    '0 0 * * 0,6',
    '+5 * * * *',
    '0 0 29 2 *',
  ].map(schedule),
  ...[
    'Europe/Berlin',
    'UTC',
    'utc',
    'Local',
    'local',
    '',
    'US/Pacific',
    'america/new_york',
    'Etc/GMT+5',
    'EST',
    'Mars/Olympus',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'GMT0',
    'Europe/Kyiv',
    'Factory',
    'America/Argentina/Buenos_Aires',
    'Europe/../UTC',
    'Europe/Berlinnnnnnnnnnnn',
    '-UTC',
    'EST5EDT',
    'Zulu',
    'posixrules',
    'America/Indiana/Indianapolis',
  ].map((tz) => c(`timeZone ${JSON.stringify(tz)}`, (o) => (o.spec.timeZone = tz))),
  c('timeZone and TZ= in schedule', (o) => Object.assign(o.spec, { timeZone: 'UTC', schedule: 'TZ=UTC 0 * * * *' })),
  c('concurrencyPolicy Forbid', (o) => (o.spec.concurrencyPolicy = 'Forbid')),
  c('concurrencyPolicy Replace', (o) => (o.spec.concurrencyPolicy = 'Replace')),
  c('concurrencyPolicy forbid', (o) => (o.spec.concurrencyPolicy = 'forbid')),
  c('concurrencyPolicy empty', (o) => (o.spec.concurrencyPolicy = '')),
  ...['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'].flatMap((f) => [
    c(`${f} -1`, (o) => (o.spec[f] = -1)),
    c(`${f} 0`, (o) => (o.spec[f] = 0)),
  ]),
  c('name of 52 characters', (o) => (o.metadata.name = 'x'.repeat(52))),
  c('name of 53 characters', (o) => (o.metadata.name = 'x'.repeat(53))),
  c('jobTemplate selector', (o) => (o.spec.jobTemplate.spec.selector = { matchLabels: { app: 'batch' } })),
  c('jobTemplate manualSelector true', (o) => (o.spec.jobTemplate.spec.manualSelector = true)),
  c('jobTemplate manualSelector false', (o) => (o.spec.jobTemplate.spec.manualSelector = false)),
  c('jobTemplate without labels', (o) => delete o.spec.jobTemplate.spec.template.metadata),
  c('jobTemplate metadata', (o) => (o.spec.jobTemplate.metadata = { labels: { team: 'a' } })),
  c('suspend', (o) => (o.spec.suspend = true)),
];

/** @internal */
export const BATCH_CASES: readonly Case[] = [...JOB_SPEC, ...JOB, ...CRON_JOB];
