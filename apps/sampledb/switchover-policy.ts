import { Construct } from 'constructs';
import { ICustomResourceDefinition, ValidatingAdmissionPolicy } from '../../lib';

/** The group allowed to request a switchover unless the chart names another. */
export const DEFAULT_SWITCHOVER_GROUP = 'sampledb-admins';

/**
 * Who may request a switchover: setting or changing `spec.primary` moves the primary role to another pod (clients of
 * the `-rw` Service are disconnected), so only members of one group may do it. CEL rules of the CRD see only the
 * object, never the user: this is a ValidatingAdmissionPolicy on `request.userInfo` (Kubernetes 1.30+). The demo
 * targets 1.28 to 1.37: the policy goes to `dist/6-requires-1.30.yaml`, applied where the cluster serves it; on 1.28
 * and 1.29 whoever may edit a SampleDB may request a switchover.
 * Clearing `spec.primary` asks for nothing and stays open to everyone who may edit the SampleDB.
 */
export function switchoverPolicy(
  scope: Construct,
  crd: ICustomResourceDefinition,
  group: string,
): ValidatingAdmissionPolicy {
  const policy = new ValidatingAdmissionPolicy(scope, 'switchover-policy', {
    name: 'sampledb-switchover',
    onUnservedVersions: 'skip',
    // the storage version only: requests in the other versions (v1 has no spec.primary) are converted to it first
    // (matchPolicy Equivalent), so the expressions see one schema
    matchConstraints: {
      resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE', 'UPDATE'], [crd.storageVersion]),
      matchPolicy: 'Equivalent',
    },
    variables: [
      {
        name: 'requestsSwitchover',
        expression:
          "has(object.spec.primary) && (request.operation == 'CREATE' || !has(oldObject.spec.primary) || object.spec.primary != oldObject.spec.primary)",
      },
    ],
    validations: [
      {
        expression: `!variables.requestsSwitchover || ${JSON.stringify(group)} in request.userInfo.groups`,
        messageExpression: `'only members of group ${group} may request a switchover (spec.primary), not ' + request.userInfo.username`,
        reason: 'Forbidden',
      },
    ],
  });
  policy.bind('switchover-binding', { validationActions: ['Deny'] });
  return policy;
}
