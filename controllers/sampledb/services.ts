/**
 * The two Services of a database: `<db>-headless` (stable pod DNS for the StatefulSet, also for
 * not-ready pods) and `<db>` (clients).
 */
import { controllerReference, KubeObject } from '../../runtime';
import { POSTGRES_PORT } from './pods';
import { labels, names, SampleDB, selectorLabels } from './types';

const PORTS = [{ name: 'postgresql', port: POSTGRES_PORT, targetPort: 'postgresql', protocol: 'TCP' }];

/** Desired headless Service. */
export function headlessService(db: SampleDB): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names.headlessService(db.metadata!.name!), namespace: db.metadata!.namespace, labels: labels(db, 'database'), ownerReferences: [controllerReference(db)] },
    spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: selectorLabels(db), ports: PORTS },
  };
}

/** Desired client Service. */
export function clientService(db: SampleDB): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names.clientService(db.metadata!.name!), namespace: db.metadata!.namespace, labels: labels(db, 'database'), ownerReferences: [controllerReference(db)] },
    spec: { type: 'ClusterIP', selector: selectorLabels(db), ports: PORTS },
  };
}
