/**
 * The init Job `<db>-init`: waits for the primary, then creates the operator's bookkeeping table.
 * Created once when the StatefulSet exists; Job templates are immutable, so it is never re-applied.
 */
import { jobFor, withWaitForPrimary } from './pods';
import { Database, Desired, names } from './types';

const INIT_SQL = [
  'CREATE TABLE IF NOT EXISTS sampledb_info (key text PRIMARY KEY, value text NOT NULL)',
  "INSERT INTO sampledb_info VALUES ('initialized_at', now()::text) ON CONFLICT (key) DO NOTHING",
];

/** The desired init Job, run with `image` (the StatefulSet's: psql matches the server). */
export function initJob(db: Database, image: string): Desired {
  const script = withWaitForPrimary(INIT_SQL.map((sql) => `psql -v ON_ERROR_STOP=1 -c "${sql}"`).join('\n'));
  return jobFor(db, { name: names.initJob(db.metadata.name), component: 'init', image, script });
}
