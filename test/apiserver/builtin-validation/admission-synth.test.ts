import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { Operator, OperatorApp, ValidatingAdmissionPolicy } from '../../../lib';
import { FakeCrd } from '../../operator/crd-double';

/** An OperatorApp whose raw webhook configuration and admission policy the apiserver refuses: synth fails first. */
describe('synth of admissionregistration.k8s.io objects', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admission-synth-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const appOn130 = () => new OperatorApp({ outdir: path.join(dir, 'dist'), kubernetesVersions: { min: '1.30' } });
  const synthError = (app: OperatorApp) => {
    try {
      app.synth();
    } catch (e) {
      return (e as Error).message;
    }
    return '';
  };
  const webhook = (extra: object) => ({
    name: 'check.example.com',
    clientConfig: { service: { name: 'hooks', namespace: 'default' } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  });
  const rawObjects = (chart: Chart, hook: object, expression: string) => {
    new ApiObject(chart, 'vwc', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'hooks' },
      webhooks: [webhook(hook)],
    });
    new ApiObject(chart, 'vap', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'replicas' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
          ],
        },
        validations: [{ expression }],
      },
    });
  };

  test('a raw webhook configuration and policy the apiserver refuses fail synth, naming construct, field and value', () => {
    const app = appOn130();
    const chart = new Chart(app, 'hooks');
    rawObjects(chart, { name: 'short', timeoutSeconds: 45, sideEffects: undefined }, 'object.spec.replicas <=');
    const message = synthError(app);
    const vwc = '[hooks/vwc] admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration hooks:';
    expect(message).toContain(
      `${vwc} webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots`,
    );
    expect(message).toContain(
      `${vwc} webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds`,
    );
    expect(message).toContain(`${vwc} webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`);
    expect(message).toContain(
      '[hooks/vap] admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy replicas: spec.validations[0].expression: ' +
        'Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:22: Syntax error',
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('the same objects, valid, synthesize', () => {
    const app = appOn130();
    rawObjects(new Chart(app, 'hooks'), {}, 'object.spec.replicas <= 5');
    app.synth();
    expect(fs.readdirSync(path.join(dir, 'dist'))).toEqual(['hooks.k8s.yaml']);
  });

  test("an Operator's webhook with a bad timeout gives one line for it: the operator's, not the apiserver check's too", () => {
    const app = appOn130();
    const chart = new Chart(app, 'test');
    const db = new FakeCrd(chart, 'db', { group: 'database.example.com', kind: 'SampleDB', plural: 'sampledbs' });
    new Operator(chart, 'db-operator', {
      crds: [db],
      image: 'ghcr.io/acme/db:0.1.0',
      replicas: 2,
      watchNamespaces: ['team-a'],
      contract: {
        status: true,
        leaderElection: true,
        watches: [db],
        webhooks: [{ for: db, type: 'validating', timeoutSeconds: 45 }],
      },
    } as any);
    const message = synthError(app);
    expect(message.split('\n').filter((l) => l.includes('timeoutSeconds'))).toStrictEqual([
      "  [test/db-operator/Webhooks] contract.webhooks[0].timeoutSeconds: must be an integer from 1 to 30 (the apiserver's limit), got 45",
    ]);
  });

  test('a ValidatingAdmissionPolicy construct with a bad expression gives one line for it, its own', () => {
    const app = appOn130();
    const chart = new Chart(app, 'test');
    new ValidatingAdmissionPolicy(chart, 'Bad', {
      name: 'bad',
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
        ],
      },
      validations: [{ expression: 'object.spec.replicas + 1' }],
    });
    const message = synthError(app);
    expect(message.split('\n').filter((l) => l.includes('spec.validations[0].expression'))).toStrictEqual([
      '  [test/Bad] on Kubernetes 1.30, 1.31: spec.validations[0].expression: Invalid value: "object.spec.replicas + 1": must evaluate to bool',
      '  [test/Bad] on Kubernetes 1.32, 1.33, 1.34, 1.35, 1.36, 1.37: spec.validations[0].expression: Invalid value: "object.spec.replicas + 1": must evaluate to bool but got int',
    ]);
  });
});
