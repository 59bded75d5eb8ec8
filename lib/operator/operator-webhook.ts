import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { controllerLabels } from './operator-deployment';

/** The port the runtime's webhook server listens on (controller-runtime's). */
export const DEFAULT_WEBHOOK_PORT = 9443;

/** Props of `OperatorWebhook`. */
export interface OperatorWebhookProps {
  readonly name: string;
  readonly namespace: string;
  /** The controller's pods. */
  readonly pods: kplus.IPodSelector;
  /** The controller's container: gets the webhook port and the environment the runtime reads. */
  readonly container: kplus.Container;
  /** @default DEFAULT_WEBHOOK_PORT */
  readonly port?: number;
}

/**
 * What the operator's webhook server needs in the cluster: the Service the apiserver calls
 * (`<name>-webhook`, 443 → the container's webhook port) and the certificate Secret, created empty
 * (`<name>-webhook-certs`: the leader fills it, so the operator needs only get/update on it by name).
 * The Service publishes not-ready addresses: the controller's readiness waits for its informers, and
 * listing a kind stored at another version needs this very webhook (conversion), which a Service that
 * routes only to ready pods would never reach.
 */
export class OperatorWebhook extends Construct {
  public readonly service: kplus.Service;
  public readonly serviceName: string;
  public readonly secretName: string;
  public readonly port: number;

  constructor(scope: Construct, id: string, props: OperatorWebhookProps) {
    super(scope, id);
    this.port = props.port ?? DEFAULT_WEBHOOK_PORT;
    this.serviceName = `${props.name}-webhook`;
    this.secretName = `${props.name}-webhook-certs`;
    const labels = controllerLabels(props.name);
    this.service = new kplus.Service(this, 'Service', {
      metadata: { name: this.serviceName, namespace: props.namespace, labels },
      selector: props.pods,
      ports: [{ name: 'webhook', port: 443, targetPort: this.port }],
      publishNotReadyAddresses: true,
    });
    new ApiObject(this, 'CertificateSecret', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: this.secretName, namespace: props.namespace, labels },
      type: 'Opaque',
    });
    props.container.addPort({ number: this.port, name: 'webhook' });
    props.container.env.addVariable('WEBHOOK_SERVICE', kplus.EnvValue.fromValue(this.serviceName));
    props.container.env.addVariable('WEBHOOK_CERT_SECRET', kplus.EnvValue.fromValue(this.secretName));
    props.container.env.addVariable('WEBHOOK_BIND_ADDRESS', kplus.EnvValue.fromValue(`:${this.port}`));
  }
}
