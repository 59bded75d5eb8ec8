import { cronParseError } from './batch-cron';
import { defaultedJobSpec, jobFeatures, jobSpecIssues, jobTemplateFeatures } from './batch-job-spec';
import { jobSelectorIssues, NAME_LABELS } from './batch-selector';
import { loadLocationError } from './batch-time-zone';
import { podTemplateIssues } from './pod-spec';
import { labelsIssues, nonNegativeIssues } from './pod-spec-common';
import { BuiltinValidators } from './validator';
import { templateLabels } from './workloads-selector';
import { child, invalid, isObject, notSupported, required, warning } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { labelMapIssues } from '../../apimachinery/label-selector';
import { isDns1123Label } from '../../apimachinery/names';

/*
 * batch/v1's own checks of a Job and a CronJob on create (pkg/apis/batch/validation), after defaulting. Their pod
 * templates' own checks are `podTemplateIssues`'s, with the restart policies a Job allows.
 */

const JOB_RESTART_POLICIES = { restartPolicies: ['OnFailure', 'Never'] } as const;

/** `ValidateJob`: the spec as defaulted, the selector it generates, an indexed job's pod host names. */
function jobIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = defaultedJobSpec(object?.spec, version);
  const name = typeof object?.metadata?.name === 'string' ? object.metadata.name : '';
  const issues = [
    ...generatedLabelIssues(object, spec, name, version),
    ...jobSelectorIssues(spec, name, version),
    ...jobSpecIssues(spec, 'spec', jobFeatures(version)),
    ...podTemplateIssues(spec.template, 'spec.template', version, JOB_RESTART_POLICIES),
  ];
  if (spec.completionMode === 'Indexed' && typeof spec.completions === 'number' && spec.completions > 0 && name) {
    // the job controller names an indexed job's pods (and their host names) `<name>-<index>`
    const hostname = `${name}-${spec.completions - 1}`;
    if (isDns1123Label(hostname).length > 0) {
      issues.push(invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return issues;
}

/**
 * The labels a Job gets on create beyond the user's: unless `manualSelector`, PrepareForCreate adds the Job's name to
 * its template's labels (`job-name`, `batch.kubernetes.io/job-name`), so a name longer than a label value's 63
 * characters is refused there; and a Job without labels of its own was defaulted to its template's labels, the same Go
 * map, which validation then checks as the Job's own (`metadata.labels`: measured, both paths reported).
 */
function generatedLabelIssues(object: any, spec: any, name: string, version: KubernetesVersion): Issue[] {
  const template = templateLabels(spec.template);
  const generated: Record<string, string> = {};
  if (spec.manualSelector !== true) for (const key of NAME_LABELS) if (!(key in template)) generated[key] = name;
  const issues = labelsIssues('spec.template.labels', generated, version);
  const own = object?.metadata?.labels;
  if (isObject(own) && Object.keys(own).length > 0) return issues;
  // SetDefaults_Job copies only a template's label map that exists (an empty one too)
  if (!isObject(spec.template?.metadata?.labels)) return issues;
  issues.push(...labelMapIssues({ ...template, ...generated }, 'metadata.labels', version));
  return issues;
}

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** The controller appends `-<11 characters>` to a CronJob's name for its Jobs, whose names are DNS-1035 labels. */
const MAX_CRONJOB_NAME = 63 - 11;

/** `ValidateCronJobCreate`. */
function cronJobIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isObject(object?.spec) ? object.spec : {};
  const issues: Issue[] = [
    ...scheduleIssues(spec, version),
    ...nonNegativeIssues('spec.startingDeadlineSeconds', spec.startingDeadlineSeconds),
    ...timeZoneIssues(spec.timeZone),
  ];
  const policy = spec.concurrencyPolicy || 'Allow';
  if (!CONCURRENCY_POLICIES.includes(policy)) {
    issues.push(notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  }
  issues.push(...jobTemplateIssues(spec.jobTemplate, version));
  issues.push(
    ...nonNegativeIssues('spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit),
    ...nonNegativeIssues('spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit),
  );
  const name = object?.metadata?.name;
  if (typeof name === 'string' && name.length > MAX_CRONJOB_NAME) {
    issues.push(invalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
  }
  return issues;
}

/**
 * Whether a `TZ=` in the schedule is refused on create: measured, 1.32 and 1.36 refuse it, 1.28 only with a
 * `timeZone` beside it (1.29 to 1.31 unmeasured: checked as 1.28).
 */
function refusesTzInSchedule(version: KubernetesVersion): boolean {
  return minorOf(version) >= 32;
}

/** `validateScheduleFormat` on create: the cron parser's verdict, and no time zone in the schedule itself. */
function scheduleIssues(spec: any, version: KubernetesVersion): Issue[] {
  const schedule = spec.schedule;
  if (typeof schedule !== 'string' || schedule === '') return [required('spec.schedule')];
  const issues: Issue[] = [];
  const err = cronParseError(schedule, loadLocationError);
  if (err) issues.push(invalid('spec.schedule', schedule, err));
  if (!schedule.includes('TZ')) return issues;
  if (refusesTzInSchedule(version)) {
    issues.push(invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  } else if (spec.timeZone != null) {
    issues.push(invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else {
    issues.push(
      warning({
        path: 'spec.schedule',
        message:
          'TZ or CRON_TZ in the schedule is not officially supported: the apiserver warns; use the timeZone field',
        value: schedule,
      }),
    );
  }
  return issues;
}

/** Names Go's time zone database has and ICU's has not. */
const GO_ONLY_ZONES = ['Factory', 'posixrules'];

/** `validateTimeZone`. */
function timeZoneIssues(timeZone: unknown): Issue[] {
  if (timeZone == null || typeof timeZone !== 'string') return [];
  const path = 'spec.timeZone';
  if (timeZone === '') return [invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  const badPart = timeZone
    .split('/')
    .some((p) => p === '.' || p === '..' || p.startsWith('-') || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(p));
  if (badPart) return [invalid(path, timeZone, `unknown time zone ${timeZone}`)];
  const issues: Issue[] = [];
  if (timeZone.toLowerCase() === 'local') {
    issues.push(
      invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'),
    );
  }
  const err = GO_ONLY_ZONES.includes(timeZone) ? undefined : loadLocationError(timeZone);
  if (err) issues.push(invalid(path, timeZone, err));
  return issues;
}

/** `ValidateJobTemplateSpec`: a Job's spec checks (not defaulted), and no selector of its own. */
function jobTemplateIssues(jobTemplate: unknown, version: KubernetesVersion): Issue[] {
  const spec: any = isObject(jobTemplate) && isObject(jobTemplate.spec) ? jobTemplate.spec : {};
  const path = 'spec.jobTemplate.spec';
  const issues = [
    ...jobSpecIssues(spec, path, jobTemplateFeatures(version)),
    ...podTemplateIssues(spec.template, child(path, 'template'), version, JOB_RESTART_POLICIES),
  ];
  if (spec.selector != null) {
    issues.push(invalid(child(path, 'selector'), spec.selector, '`selector` will be auto-generated'));
  }
  if (spec.manualSelector === true) issues.push(notSupported(child(path, 'manualSelector'), true, ['nil', 'false']));
  return issues;
}

/** @internal */
export const BATCH_VALIDATORS: BuiltinValidators = {
  'batch/v1/Job': jobIssues,
  'batch/v1/CronJob': cronJobIssues,
};
