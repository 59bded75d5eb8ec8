import { isRecord, listOf, stringsOf } from './services-field-errors';

/*
 * The apiserver validates a Service after its defaults (pkg/apis/core/v1's SetDefaults_Service and the Service
 * strategy's PrepareForCreate): the checks read the Service as it would be stored, not as the app wrote it.
 */

/** One port of a defaulted Service. @internal */
export interface DefaultedServicePort {
  readonly raw: Record<string, any>;
  readonly name: string;
  readonly port: unknown;
  /** TCP when unset. */
  readonly protocol: unknown;
  /** The port itself when unset, 0 or "" (SetDefaults_Service). */
  readonly targetPort: unknown;
  readonly nodePort: unknown;
}

/** The fields the checks read, defaulted. @internal */
export interface DefaultedServiceSpec {
  readonly raw: Record<string, any>;
  /** ClusterIP when unset or empty. */
  readonly type: unknown;
  /** None when unset or empty. */
  readonly sessionAffinity: unknown;
  readonly ports: readonly DefaultedServicePort[];
  readonly clusterIP: string;
  /** `[clusterIP]` when only clusterIP is given (PrepareForCreate's normalizeClusterIPs). */
  readonly clusterIPs: readonly string[];
  /** Cluster for NodePort and LoadBalancer Services when unset. */
  readonly externalTrafficPolicy: unknown;
}

const unset = (v: unknown) => v === undefined || v === null || v === '';

/** @internal */
export function defaultedServiceSpec(spec: unknown): DefaultedServiceSpec {
  const raw = isRecord(spec) ? spec : {};
  const type = unset(raw.type) ? 'ClusterIP' : raw.type;
  const clusterIP = typeof raw.clusterIP === 'string' ? raw.clusterIP : '';
  const givenIPs = stringsOf(raw.clusterIPs).filter((ip): ip is string => typeof ip === 'string');
  const external = type === 'NodePort' || type === 'LoadBalancer';
  return {
    raw,
    type,
    sessionAffinity: unset(raw.sessionAffinity) ? 'None' : raw.sessionAffinity,
    ports: listOf(raw.ports).map((p) => {
      const port = isRecord(p) ? p : {};
      return {
        raw: port,
        name: typeof port.name === 'string' ? port.name : '',
        port: port.port ?? 0,
        protocol: unset(port.protocol) ? 'TCP' : port.protocol,
        targetPort: unset(port.targetPort) || port.targetPort === 0 ? (port.port ?? 0) : port.targetPort,
        nodePort: port.nodePort ?? 0,
      };
    }),
    clusterIP,
    clusterIPs: givenIPs.length === 0 && clusterIP !== '' ? [clusterIP] : givenIPs,
    externalTrafficPolicy: external && unset(raw.externalTrafficPolicy) ? 'Cluster' : raw.externalTrafficPolicy,
  };
}
