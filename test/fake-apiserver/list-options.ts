/** ValidateListOptions (apimachinery internalversion/validation): the list/watch parameter combinations the apiserver rejects. */
import { ApiError, StatusCause, badRequest, fieldForbidden } from './status';

export function validateListOptions(q: URLSearchParams, watch: boolean): void {
  const causes: StatusCause[] = [];
  const match = q.get('resourceVersionMatch') ?? '';
  const rv = q.get('resourceVersion') ?? '';
  if (rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  const sendInitialEvents = q.get('sendInitialEvents');
  if (watch) {
    if (sendInitialEvents !== null && match !== 'NotOlderThan') {
      causes.push(fieldForbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match !== '') {
      if (sendInitialEvents === null) causes.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') {
        causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(match)}: supported values: "NotOlderThan"`, field: 'resourceVersionMatch' });
      }
    }
  } else {
    if (sendInitialEvents !== null) causes.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    if (match !== '') {
      if (rv === '') causes.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (q.get('continue')) causes.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match === 'Exact' && rv === '0') causes.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      if (match !== 'Exact' && match !== 'NotOlderThan') {
        causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan"`, field: 'resourceVersionMatch' });
      }
    }
  }
  if (causes.length === 0) return;
  const parts = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  throw new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`,
    { group: 'meta.k8s.io', kind: 'ListOptions', causes });
}
