import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { SampleDB } from '../../imports/database.example.com';
import { sampleDbCrd } from './sampledb-crd';

/** The SampleDB CRD and two example databases, each checked against the CRD at synth. */
export class SampleDbChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);
    sampleDbCrd(this);

    // The seed document's example.
    new SampleDB(this, 'my-db', {
      metadata: { name: 'my-db', namespace: 'default' },
      spec: { version: '16.4', replicas: 3, backupSchedule: '0 2 * * *', backupRetention: 7 },
    });
    new SampleDB(this, 'scratch-db', {
      metadata: { name: 'scratch-db', namespace: 'default' },
      spec: { version: '17' },
    });
  }
}
