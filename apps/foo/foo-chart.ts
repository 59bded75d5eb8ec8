import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { Foo } from '../../imports/samplecontroller.k8s.io';
import { fooCrd } from './foo-crd';

/** kubernetes/sample-controller's Foo CRD and its upstream example. */
export class FooChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);
    fooCrd(this);
    new Foo(this, 'example-foo', {
      metadata: { name: 'example-foo', namespace: 'default' },
      spec: { deploymentName: 'example-foo', replicas: 1 },
    });
  }
}
