/**
 * The Services of a database: `<db>-headless` (stable pod DNS for the StatefulSet, also for
 * not-ready pods), `<db>-rw` (the primary, by the role label the operator maintains), `<db>-ro`
 * (ready standbys) and `<db>` (clients of earlier versions: the primary, like `<db>-rw`).
 */
import { POSTGRES_PORT } from './pods';
import { Database, Desired, LABEL_ROLE, labels, names, selectorLabels } from './types';
import { controllerReference } from '../../runtime';

const PORTS = [{ name: 'postgresql', port: POSTGRES_PORT, targetPort: 'postgresql', protocol: 'TCP' }];

/** Desired headless Service. */
export function headlessService(db: Database): Desired {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: names.headlessService(db.metadata.name),
      namespace: db.metadata.namespace,
      labels: labels(db, 'database'),
      ownerReferences: [controllerReference(db)],
    },
    spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: selectorLabels(db), ports: PORTS },
  };
}

function roleService(db: Database, name: string, role: 'primary' | 'replica'): Desired {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: db.metadata.namespace,
      labels: labels(db, 'database'),
      ownerReferences: [controllerReference(db)],
    },
    spec: { type: 'ClusterIP', selector: { ...selectorLabels(db), [LABEL_ROLE]: role }, ports: PORTS },
  };
}

/** Desired client Service `<db>`: the primary (as `<db>-rw`). */
export function clientService(db: Database): Desired {
  return roleService(db, names.clientService(db.metadata.name), 'primary');
}

/** Desired `<db>-rw`: the primary only. */
export function primaryService(db: Database): Desired {
  return roleService(db, names.primaryService(db.metadata.name), 'primary');
}

/** Desired `<db>-ro`: the standbys (ready ones, as for every Service). */
export function replicaService(db: Database): Desired {
  return roleService(db, names.replicaService(db.metadata.name), 'replica');
}
