import { formatIssue } from '../../../lib/apimachinery/issue';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { cronParseError } from '../../../lib/apiserver/builtin-validation/batch-cron';
import { loadLocationError } from '../../../lib/apiserver/builtin-validation/batch-time-zone';

const template = {
  metadata: { labels: { app: 'batch' } },
  spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
};
const job = (spec: any = {}, name = 'work') => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { template, ...spec },
});
const cronJob = (spec: any = {}, name = 'nightly') => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template } }, ...spec },
});
const lines = (o: any, version: '1.28' | '1.32' | '1.36' = '1.32') => builtinObjectIssues(o, version).map(formatIssue);

describe('the cron parser (robfig/cron ParseStandard)', () => {
  test.each([
    ['every day', 'expected exactly 5 fields, found 2: [every day]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['a * * * *', 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
    ['@reboot', 'unrecognized descriptor: @reboot'],
    ['@every 1d', 'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"'],
    ['@every 5', 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ['TZ=Mars/Olympus 0 * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ])('%j: %s', (spec, message) => {
    expect(cronParseError(spec, loadLocationError)).toBe(message);
  });

  test.each([
    '0 0 * * *',
    '*/5 * * * *',
    '@hourly',
    '@every 1h30m',
    '* * * jan-mar MON-FRI',
    '5/15 * * * *',
    '0 0 ,1 * *',
  ])('%j parses', (spec) => {
    expect(cronParseError(spec, loadLocationError)).toBeUndefined();
  });
});

describe('time zones as Go loads them', () => {
  test.each([
    ['Europe/Berlin', undefined],
    ['US/Pacific', undefined],
    ['UTC', undefined],
    ['utc', 'unknown time zone utc'],
    ['america/new_york', 'unknown time zone america/new_york'],
    ['Mars/Olympus', 'unknown time zone Mars/Olympus'],
  ])('%s', (zone, error) => {
    expect(loadLocationError(zone)).toBe(error);
  });
});

describe('batch workloads: their own fields', () => {
  test('valid objects have no issue', () => {
    expect(lines(job())).toStrictEqual([]);
    expect(lines(cronJob())).toStrictEqual([]);
  });

  test('a CronJob schedule in words names the field and the value', () => {
    expect(lines(cronJob({ schedule: 'every day' }))).toStrictEqual([
      'spec.schedule: Invalid value: expected exactly 5 fields, found 2: [every day] (got "every day")',
    ]);
  });

  test('TZ= in the schedule: refused from 1.32, a warning alone on 1.28', () => {
    const o = cronJob({ schedule: 'TZ=UTC 0 * * * *' });
    expect(lines(o, '1.32')).toStrictEqual([
      'spec.schedule: Invalid value: cannot use TZ or CRON_TZ in schedule, use timeZone field instead (got "TZ=UTC 0 * * * *")',
    ]);
    expect(builtinObjectIssues(o, '1.28').map((i) => i.severity)).toStrictEqual(['warning']);
  });

  test('a CronJob name is limited to 52 characters', () => {
    expect(lines(cronJob({}, 'x'.repeat(52)))).toStrictEqual([]);
    expect(lines(cronJob({}, 'x'.repeat(53)))).toHaveLength(1);
  });

  test("a Job's own selector needs manualSelector", () => {
    const selector = { matchLabels: { app: 'batch' } };
    expect(lines(job({ selector })).map((l) => l.split(':')[0])).toStrictEqual(['spec.selector']);
    expect(lines(job({ selector, manualSelector: true }))).toStrictEqual([]);
  });

  test('a pod failure policy needs restartPolicy Never', () => {
    const rules = [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] } }];
    const onFailure = { ...template, spec: { ...template.spec, restartPolicy: 'OnFailure' } };
    expect(lines(job({ podFailurePolicy: { rules }, template: onFailure }))).toStrictEqual([
      'spec.template.spec.restartPolicy: Invalid value: only "Never" is supported when podFailurePolicy is specified (got "OnFailure")',
    ]);
  });

  test('backoffLimitPerIndex: dropped from a Job on 1.28, validated from 1.29 and in a CronJob on 1.28', () => {
    expect(lines(job({ backoffLimitPerIndex: 1 }), '1.28')).toStrictEqual([]);
    expect(lines(job({ backoffLimitPerIndex: 1 }), '1.32')).toStrictEqual([
      'spec.backoffLimitPerIndex: Invalid value: requires indexed completion mode (got 1)',
    ]);
    const cron = cronJob({ jobTemplate: { spec: { template, backoffLimitPerIndex: 1 } } });
    expect(lines(cron, '1.28')).toHaveLength(1);
  });

  test('an indexed Job name leaves room for the pod index', () => {
    expect(lines(job({ completionMode: 'Indexed', completions: 10 }, 'x'.repeat(62)))).toStrictEqual([
      `metadata.name: Invalid value: will not able to create pod with invalid DNS label: ${'x'.repeat(62)}-9 (got "${'x'.repeat(62)}")`,
    ]);
  });
});
