/**
 * Prints the SampleDB CRD (from apps/sampledb/sampledb-crd.ts) as YAML, for `kubectl apply` when
 * running the controller locally: `npx tsx controllers/sampledb/write-crd.ts | kubectl apply --server-side -f -`.
 */
import { App, Chart } from 'cdk8s';
import { stringify } from 'yaml';
import { sampleDbCrd } from '../../apps/sampledb/sampledb-crd';

process.stdout.write(stringify(sampleDbCrd(new Chart(new App(), 'crd')).toManifest()));
