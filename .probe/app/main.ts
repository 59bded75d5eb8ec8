import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../lib';
const app = new OperatorApp({ outdir: '.probe/app/dist' } as any);
const chart = new Chart(app, 'c');
new ApiObject(chart, 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' }, data: { a: 5 }, spec: {} } as any);
new ApiObject(chart, 'svc', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 'abc' }], selector: { a: 'b' } } } as any);
new ApiObject(chart, 'pdb', { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: {} } as any);
app.synth();
