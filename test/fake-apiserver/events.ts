/**
 * core/v1 Events and events.k8s.io/v1 Events are one resource stored once (in core shape) and served in two
 * shapes, as in kube-apiserver; plus the apiserver's event validation (legacy rules for v1, strict for events.k8s.io/v1).
 */
import { StatusCause, fieldInvalid, fieldRequired } from './status';

const RENAMES: Array<[string, string]> = [
  // [events.k8s.io/v1, core/v1]
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: any, pairs: Array<[string, string]>): any {
  const out: any = { ...obj };
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

export function eventsV1ToCore(obj: any): any {
  const out = rename(obj, RENAMES);
  out.apiVersion = 'v1';
  return out;
}

export function coreToEventsV1(obj: any): any {
  const out = rename(obj, RENAMES.map(([a, b]) => [b, a] as [string, string]));
  out.apiVersion = 'events.k8s.io/v1';
  // core's empty defaults that events.k8s.io/v1 does not show
  if (out.deprecatedSource && !out.deprecatedSource.component && !out.deprecatedSource.host) delete out.deprecatedSource;
  return out;
}

const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** ValidateEventCreate (pkg/apis/core/validation/events.go) on the core shape; `viaEventsV1` selects the strict rules. */
export function validateEventCreate(e: any, viaEventsV1: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const ns = e.metadata?.namespace ?? '';
  const involvedNs = e.involvedObject?.namespace ?? '';
  const controllerField = viaEventsV1 ? 'reportingController' : 'reportingComponent';
  if (!e.eventTime) {
    if (involvedNs === '' ? !(ns === '' || ns === 'default') : ns !== involvedNs) {
      causes.push(fieldInvalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') causes.push(fieldInvalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    const controller = e.reportingComponent ?? '';
    if (!controller) causes.push(fieldRequired(controllerField));
    else if (!QUALIFIED_NAME.test(controller)) {
      causes.push(fieldInvalid(controllerField, controller, 'name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')'));
    }
    if (!e.reportingInstance) causes.push(fieldRequired('reportingInstance'));
    else if (e.reportingInstance.length > 128) causes.push(fieldInvalid('reportingInstance', '', 'can have at most 128 characters'));
    if (!e.action) causes.push(fieldRequired('action'));
    else if (e.action.length > 128) causes.push(fieldInvalid('action', '', 'can have at most 128 characters'));
    if (!e.reason) causes.push(fieldRequired('reason'));
    else if (e.reason.length > 128) causes.push(fieldInvalid('reason', '', 'can have at most 128 characters'));
    if ((e.message ?? '').length > 1024) causes.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  }
  if (!viaEventsV1) return causes;
  if (!e.eventTime) causes.push(fieldRequired('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') causes.push(fieldInvalid('type', '', `has invalid value: ${e.type ?? ''}`));
  if (e.firstTimestamp) causes.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (e.lastTimestamp) causes.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if (e.count) causes.push(fieldInvalid('count', '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) causes.push(fieldInvalid('source', '', 'needs to be unset'));
  if (e.series) {
    if (!(e.series.count >= 2)) causes.push(fieldInvalid('series.count', '', 'should be at least 2'));
    if (!e.series.lastObservedTime) causes.push(fieldRequired('series.lastObservedTime'));
  }
  return causes;
}
