import { ingressClassIssues, ingressIssues } from './networking-ingress';
import { networkPolicyIssues } from './networking-policy';
import { BuiltinValidators } from './validator';

/** @internal */
export const NETWORKING_VALIDATORS: BuiltinValidators = {
  'networking.k8s.io/v1/NetworkPolicy': networkPolicyIssues,
  'networking.k8s.io/v1/Ingress': ingressIssues,
  'networking.k8s.io/v1/IngressClass': ingressClassIssues,
};
