import { apiServiceIssues } from './apiregistration-api-service';
import { horizontalPodAutoscalerV1Issues } from './cluster-autoscaling-v1';
import { runtimeClassIssues } from './cluster-runtime-class';
import { leaseIssues } from './coordination-lease';
import { endpointSliceIssues } from './discovery-endpoint-slice';
import { flowSchemaIssues } from './flowcontrol-flow-schema';
import { priorityLevelIssues } from './flowcontrol-priority-level';
import { priorityClassIssues } from './scheduling-priority-class';
import { BuiltinValidators } from './validator';

/*
 * The cluster-level kinds an operator's manifests commonly carry: PriorityClasses, Leases, APIServices (aggregated
 * APIs), API Priority and Fairness objects, RuntimeClasses, EndpointSlices. Each validator names the upstream
 * function it ports; all are measured on 1.28, 1.32 and 1.36 (test/apiserver/builtin-validation/cluster-differential).
 */

/** @internal */
export const CLUSTER_VALIDATORS: BuiltinValidators = {
  'scheduling.k8s.io/v1/PriorityClass': priorityClassIssues,
  'coordination.k8s.io/v1/Lease': leaseIssues,
  'apiregistration.k8s.io/v1/APIService': apiServiceIssues,
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': flowSchemaIssues,
  'flowcontrol.apiserver.k8s.io/v1beta3/FlowSchema': flowSchemaIssues,
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': priorityLevelIssues,
  'flowcontrol.apiserver.k8s.io/v1beta3/PriorityLevelConfiguration': priorityLevelIssues,
  'node.k8s.io/v1/RuntimeClass': runtimeClassIssues,
  'discovery.k8s.io/v1/EndpointSlice': endpointSliceIssues,
  'autoscaling/v1/HorizontalPodAutoscaler': horizontalPodAutoscalerV1Issues,
};
