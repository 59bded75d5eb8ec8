import { Compare, differences } from './object-meta-compare';
import { baseObject } from './object-meta-fixtures';
import { describeEachApiServerVersion } from '../../envtest';

/**
 * ConfigMap, Secret and Namespace contents against the real apiservers of 1.28, 1.32 and 1.36: a valid object and
 * one mutation each. Dry-run creates only.
 */
const cm = (f: Record<string, unknown>) => ({ ...baseObject('v1/ConfigMap'), data: undefined, ...f });
const secret = (f: Record<string, unknown>) => ({ ...baseObject('v1/Secret'), stringData: undefined, ...f });
const ns = (finalizers: string[]) => ({ ...baseObject('v1/Namespace'), spec: { finalizers } });
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Go's json errors for malformed text are not imitated word for word. */
const goJsonWords: Compare = { wording: false };

const CASES: ReadonlyArray<readonly [string, any, Compare?]> = [
  ['ConfigMap', cm({ data: { 'a.b_C-1': 'x' }, binaryData: { b: b64('y') } })],
  ['ConfigMap data key with a space and !', cm({ data: { 'bad key!': 'x' } })],
  ['ConfigMap data key empty', cm({ data: { '': 'x' } })],
  ['ConfigMap data key .', cm({ data: { '.': 'x' } })],
  ['ConfigMap data key ..', cm({ data: { '..': 'x' } })],
  ['ConfigMap data key ..a', cm({ data: { '..a': 'x' } })],
  ['ConfigMap data key .a', cm({ data: { '.a': 'x' } })],
  ['ConfigMap data key of 254 characters', cm({ data: { ['k'.repeat(254)]: 'x' } })],
  ['ConfigMap data key of 254 characters, malformed', cm({ data: { ['!'.repeat(254)]: 'x' } })],
  ['ConfigMap binaryData key malformed', cm({ binaryData: { 'bad key!': b64('x') } })],
  ['ConfigMap key in data and binaryData', cm({ data: { a: 'x' }, binaryData: { a: b64('x') } })],
  ['ConfigMap over 1 MiB', cm({ data: { a: 'x'.repeat(1048577) } })],
  ['ConfigMap of 1 MiB', cm({ data: { a: 'x'.repeat(1048576) } })],
  [
    'ConfigMap over 1 MiB with binaryData',
    cm({ data: { a: 'x'.repeat(1000000) }, binaryData: { b: b64('y'.repeat(48577)) } }),
  ],
  ['ConfigMap over 1 MiB in UTF-8 bytes', cm({ data: { a: 'é'.repeat(524289) } })],
  ['ConfigMap immutable', cm({ data: { a: 'x' }, immutable: true })],
  ['Secret', secret({ data: { a: b64('x') }, stringData: { b: 'y' } })],
  ['Secret data key malformed', secret({ data: { 'bad key!': b64('x') } })],
  ['Secret stringData key malformed', secret({ stringData: { 'bad key!': 'x' } })],
  ['Secret over 1 MiB', secret({ stringData: { a: 'x'.repeat(1048577) } })],
  ['Secret kubernetes.io/tls', secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } })],
  ['Secret kubernetes.io/tls without keys', secret({ type: 'kubernetes.io/tls' })],
  ['Secret kubernetes.io/tls without tls.crt', secret({ type: 'kubernetes.io/tls', stringData: { 'tls.key': 'x' } })],
  ['Secret dockerconfigjson without it', secret({ type: 'kubernetes.io/dockerconfigjson' })],
  [
    'Secret dockerconfigjson malformed',
    secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{bad' } }),
    goJsonWords,
  ],
  [
    'Secret dockerconfigjson empty',
    secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '' } }),
  ],
  [
    'Secret dockerconfigjson a list',
    secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '[1]' } }),
  ],
  [
    'Secret dockerconfigjson',
    secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"auths":{}}' } }),
  ],
  ['Secret dockercfg without it', secret({ type: 'kubernetes.io/dockercfg' })],
  ['Secret dockercfg a string', secret({ type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': '"x"' } })],
  ['Secret basic-auth without keys', secret({ type: 'kubernetes.io/basic-auth' })],
  [
    'Secret basic-auth with a username only',
    secret({ type: 'kubernetes.io/basic-auth', stringData: { username: 'x' } }),
  ],
  ['Secret ssh-auth without its key', secret({ type: 'kubernetes.io/ssh-auth' })],
  ['Secret ssh-auth with an empty key', secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } })],
  ['Secret service-account-token without its annotation', secret({ type: 'kubernetes.io/service-account-token' })],
  [
    'Secret service-account-token',
    secret({
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'x', annotations: { 'kubernetes.io/service-account.name': 'default' } },
    }),
  ],
  ['Secret of a type of its own', secret({ type: 'bad type!' })],
  ['Secret of an empty type', secret({ type: '' })],
  ['Namespace finalizer neither standard nor qualified', ns(['foo'])],
  ['Namespace finalizer a/b/c', ns(['a/b/c'])],
  ['Namespace finalizers', ns(['kubernetes', 'example.com/x'])],
  [
    'ServiceAccount secrets by malformed names',
    { ...baseObject('v1/ServiceAccount'), secrets: [{ name: 'Bad_Name' }], imagePullSecrets: [{ name: 'Bad_Name' }] },
  ],
];

describeEachApiServerVersion(
  'ConfigMap, Secret and Namespace against the apiserver',
  (plane, version) => {
    // every row of three: jest would take a missing third argument for a `done` callback
    test.each(CASES.map(([n, o, c]) => [n, o, c ?? {}] as const))('%s', async (_name, object, compare) => {
      expect(await differences(plane(), object, version, compare)).toStrictEqual([]);
    });
  },
  { shared: true },
);
