import { errorsOf, warningsOf } from '../../../lib/apimachinery/issue';
import { builtinObjectMetaIssues } from '../../../lib/apiserver/builtin-validation/object-meta';

const svc = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name } });
const paths = (o: any, v: any) => errorsOf(builtinObjectMetaIssues(o, v)).map((i) => i.path);

describe('builtinObjectMetaIssues', () => {
  test('Service names: a DNS-1035 label up to 1.34, an RFC 1123 label from 1.35', () => {
    expect(paths(svc('1abc'), '1.34')).toStrictEqual(['metadata.name']);
    expect(paths(svc('1abc'), '1.35')).toStrictEqual([]);
    expect(paths(svc('a.b'), '1.36')).toStrictEqual(['metadata.name']);
  });

  test('a kind the table does not name gets the path-segment rule only', () => {
    const o = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name } });
    expect(paths(o('Bad_Name'), '1.32')).toStrictEqual([]);
    expect(paths(o('a%b'), '1.32')).toStrictEqual(['metadata.name']);
  });

  test('a namespace on a cluster-scoped kind is a warning, not an error', () => {
    const cr = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'x', namespace: 'Bad_NS' },
    };
    expect(errorsOf(builtinObjectMetaIssues(cr, '1.32'))).toStrictEqual([]);
    expect(warningsOf(builtinObjectMetaIssues(cr, '1.32')).map((i) => i.path)).toStrictEqual(['metadata.namespace']);
  });

  test('a malformed namespace of a namespaced kind is an error; a missing one is fine', () => {
    const cm = (namespace?: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace } });
    expect(paths(cm('Bad_NS'), '1.32')).toStrictEqual(['metadata.namespace']);
    expect(paths(cm(), '1.32')).toStrictEqual([]);
  });

  test('owner references name their field without an index, in each version’s words', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: '', uid: 'u' }] },
    };
    expect(builtinObjectMetaIssues(cm, '1.32').map((i) => i.message)).toStrictEqual([
      'Invalid value: "": name must not be empty',
    ]);
    expect(builtinObjectMetaIssues(cm, '1.36').map((i) => i.message)).toStrictEqual([
      'Invalid value: "": must not be empty',
    ]);
  });
});
