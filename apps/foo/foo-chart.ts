import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { fooCrd } from './foo-crd';
import { FOO_CONTRACT } from '../../controllers/foo/contract';
import { controllerImage } from '../../controllers/images';
import { Foo } from '../../imports/samplecontroller.k8s.io';
import { Operator } from '../../lib';

/** Props of `FooChart`. */
export interface FooChartProps extends ChartProps {
  /**
   * Image of the Foo controller (controllers/foo), pinned by tag or digest.
   * @default - controllerImage('foo') (controllers/images.ts), what `npx projen images` builds
   */
  readonly image?: string;
  /**
   * Labels on the operator's ServiceMonitor, PrometheusRule and Namespace (what a Prometheus selects them by).
   * @default {}
   */
  readonly monitoringLabels?: Readonly<Record<string, string>>;
}

/** kubernetes/sample-controller's Foo: CRD, the operator that reconciles it, and the upstream example. */
export class FooChart extends Chart {
  constructor(scope: Construct, id: string, props: FooChartProps = {}) {
    super(scope, id, props);
    const crd = fooCrd(this);
    new Operator(this, 'foo-controller', {
      crds: [crd],
      image: props.image ?? controllerImage('foo'),
      // The controller's own declaration (controllers/foo/contract.ts): it is wired from the same object.
      contract: FOO_CONTRACT,
      // The controller serves controller-runtime's metrics: scraped and alerted on (down, errors, backlog).
      monitoring: { labels: { ...props.monitoringLabels } },
      namespaceLabels: { ...props.monitoringLabels },
    });
    new Foo(this, 'example-foo', {
      metadata: { name: 'example-foo', namespace: 'default' },
      spec: { deploymentName: 'example-foo', replicas: 1 },
    });
  }
}
