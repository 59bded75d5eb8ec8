import { ControllerContract, KindSelector } from './controller-contract';
import { PodEgress } from './operator-network-policy';
import { networkPeerProblems } from '../apimachinery/controller-contract';
import { parseApiVersion } from '../apimachinery/kinds';
import { isCustomResourceDefinitionLike } from '../crd/icustom-resource-definition';

/** The NetworkPolicy egress a contract asks for, or what is wrong with it. @internal */
export interface ContractEgress {
  readonly egress: PodEgress[];
  /** Each names its `contract.connectsTo[i]` field and the bad value. */
  readonly problems: string[];
}

/**
 * Egress to the pods in `contract.connectsTo`, on their ports, in the watched namespaces (every
 * namespace when the watch is cluster-wide): the controller only manages pods where it watches.
 *
 * @internal
 */
export function egressForContract(
  contract: ControllerContract,
  watchNamespaces: readonly string[] | undefined,
): ContractEgress {
  const owned = new Set((contract.owns ?? []).map(groupKindOf));
  const problems = networkPeerProblems(contract, (k) => owned.has(groupKindOf(k)), describeKind);
  if (problems.length) return { egress: [], problems };
  const egress = (contract.connectsTo ?? []).map((peer) => ({
    labels: { ...peer.podLabels },
    ports: peer.ports,
    namespaces: watchNamespaces,
  }));
  return { egress, problems };
}

// Group and kind, as RBAC compares kinds (versions do not matter); malformed apiVersions are
// reported by the RBAC derivation, so they simply match nothing here.
function groupKindOf(k: KindSelector): string {
  if (isCustomResourceDefinitionLike(k)) return `${k.group}/${k.names.kind}`;
  try {
    return `${parseApiVersion(k.apiVersion).group}/${k.kind}`;
  } catch {
    return `?${k.apiVersion}/${k.kind}`;
  }
}

function describeKind(k: KindSelector): string {
  return isCustomResourceDefinitionLike(k) ? `${k.group} ${k.names.kind}` : `${k.apiVersion} ${k.kind}`;
}
