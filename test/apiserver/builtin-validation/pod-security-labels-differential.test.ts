import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/**
 * A Namespace's Pod Security labels, which the PodSecurity admission plugin parses on create: synth's verdict against
 * the real apiservers'. Found by the built-in differential (bench/builtin-differential.ts): synth took any value.
 */

const m = mutationOf(() => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: 'n',
    labels: {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    },
  },
}));
const label = (key: string, value: string) => (o: any) =>
  (o.metadata.labels[`pod-security.kubernetes.io/${key}`] = value);

const CASES = [
  m('the base'),
  m('every mode and version', (o) => {
    for (const mode of ['audit', 'warn']) {
      o.metadata.labels[`pod-security.kubernetes.io/${mode}`] = 'baseline';
      o.metadata.labels[`pod-security.kubernetes.io/${mode}-version`] = 'v1.30';
    }
  }),
  m('enforce privileged', label('enforce', 'privileged')),
  m('enforce Restricted', label('enforce', 'Restricted')),
  m('audit empty', label('audit', '')),
  m('warn x', label('warn', 'x')),
  m('a version alone', (o) => {
    delete o.metadata.labels['pod-security.kubernetes.io/enforce'];
    o.metadata.labels['pod-security.kubernetes.io/warn-version'] = 'v1.0';
  }),
  m('version v1.9', label('enforce-version', 'v1.9')),
  m('version v1.01', label('enforce-version', 'v1.01')),
  m('version v1', label('enforce-version', 'v1')),
  m('version v2.0', label('audit-version', 'v2.0')),
  m('version V1.2', label('warn-version', 'V1.2')),
  m('version 1.25', label('enforce-version', '1.25')),
  m('version Latest', label('enforce-version', 'Latest')),
  m('version beyond an int64', label('enforce-version', 'v1.99999999999999999999')),
  m('version at the int64 limit', label('enforce-version', 'v1.9223372036854775807')),
  m('another key of the prefix', label('exempt', 'anything')),
  m('three bad labels, in the plugin order', (o) => {
    label('warn', 'x')(o);
    label('audit-version', 'v3')(o);
    label('enforce', 'none')(o);
  }),
  m('a bad label beside a bad name: validation first', (o) => {
    o.metadata.name = 'N';
    label('enforce', 'none')(o);
  }),
];

describeBuiltinDifferential('Namespace Pod Security labels: synth against the real apiservers', CASES);
