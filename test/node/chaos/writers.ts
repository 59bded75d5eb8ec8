/**
 * Writer pods: each inserts uniquely numbered rows through `<db>-rw` without pause, one `psql`
 * process (one connection) per insert, so every insert follows the Service through failovers.
 * Each attempt is one line of the pod's log (read back with `kubectl logs`): `ok <id> <ms>
 * <server-ip>` once the commit was acknowledged, `err <id> <ms>` otherwise (history.ts reads them).
 *
 * An insert that hangs (a primary waiting for a synchronous standby that is cut off) is ended after
 * 10 s by SIGKILL of psql, never by a cancel: a cancelled wait for synchronous replication returns
 * success with a warning, which would count as an acknowledgement of a write no standby has.
 * Ids are `writer * 1e9 + n`, so the writers never collide.
 */
import { names } from '../../../controllers/sampledb/types';

/** The table the writers fill (and the probe table of probe.ts). */
export const SCHEMA_SQL = [
  'create table if not exists chaos (id bigint primary key, writer int not null, at timestamptz not null default now())',
  'create table if not exists chaos_probe (n bigserial primary key, pod text not null, tl int not null, at timestamptz not null default now())',
];

const SCRIPT = [
  'set -u',
  'n=0',
  'echo "writer $WRITER starting against $RW"',
  'while :; do',
  '  n=$((n + 1)); id=$((WRITER * 1000000000 + n))',
  '  if out=$(timeout -s KILL 10 psql "host=$RW port=5432 user=$PGUSER dbname=$PGDATABASE connect_timeout=3" -XAtq -v ON_ERROR_STOP=1 \\',
  '      -c "insert into chaos (id, writer) values ($id, $WRITER) returning host(inet_server_addr())" 2>/dev/null); then',
  '    echo "ok $id $(date +%s%3N) $out"',
  '  else',
  '    echo "err $id $(date +%s%3N)"; sleep 0.2',
  '  fi',
  'done',
].join('\n');

/** The writer pod `<db>-writer-<n>` (Pod Security restricted; the postgres image for psql). */
export function writerPod(db: string, namespace: string, writer: number, image: string): Record<string, unknown> {
  const secret = (key: string) => ({ secretKeyRef: { name: names.secret(db), key } });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${db}-writer-${writer}`,
      namespace,
      labels: { 'app.kubernetes.io/name': 'chaos-writer', 'app.kubernetes.io/instance': db },
    },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 999,
        runAsGroup: 999,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: 'writer',
          image,
          imagePullPolicy: 'IfNotPresent',
          command: ['/bin/sh', '-c', SCRIPT],
          env: [
            { name: 'WRITER', value: String(writer) },
            // The Service's ClusterIP from the kubelet's Service variables: every insert still goes through
            // <db>-rw (kube-proxy), without a DNS lookup per connection (libpq asks A and AAAA each time).
            { name: 'RW', value: `$(${names.primaryService(db).toUpperCase().replace(/-/g, '_')}_SERVICE_HOST)` },
            { name: 'PGUSER', valueFrom: secret('username') },
            { name: 'PGPASSWORD', valueFrom: secret('password') },
            { name: 'PGDATABASE', valueFrom: secret('database') },
          ],
          resources: { requests: { cpu: '50m', memory: '32Mi' } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
          },
        },
      ],
    },
  };
}
