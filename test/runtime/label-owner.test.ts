import { AlreadyOwnedError } from '../../runtime/errors';
import {
  getLabelOwner,
  labelOwnerSelector,
  OWNER_ANNOTATION,
  OWNER_UID_LABEL,
  setLabelOwner,
} from '../../runtime/label-owner';

const tenant = { apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', metadata: { name: 'acme', uid: 'u-1' } };
const app = {
  apiVersion: 'apps.example.com/v1',
  kind: 'App',
  metadata: { name: 'web', namespace: 'team', uid: 'u-2' },
};

describe('label ownership', () => {
  test('setLabelOwner labels the uid, annotates the coordinates, keeps other labels; no ownerReference', () => {
    const ns = setLabelOwner(tenant, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'acme', labels: { team: 'a' } },
    });
    expect(ns.metadata).toEqual({
      name: 'acme',
      labels: { team: 'a', [OWNER_UID_LABEL]: 'u-1' },
      annotations: {
        [OWNER_ANNOTATION]: '{"apiVersion":"tenancy.example.com/v1","kind":"Tenant","name":"acme","uid":"u-1"}',
      },
    });
    expect(getLabelOwner(ns)).toEqual({
      apiVersion: 'tenancy.example.com/v1',
      kind: 'Tenant',
      name: 'acme',
      uid: 'u-1',
    });
    expect(getLabelOwner(ns, { apiVersion: 'tenancy.example.com/v2', kind: 'Tenant' })).toBeDefined();
    expect(getLabelOwner(ns, { apiVersion: 'apps.example.com/v1', kind: 'App' })).toBeUndefined();
    expect(labelOwnerSelector(tenant)).toBe(`${OWNER_UID_LABEL}=u-1`);
    // idempotent for the same owner; a namespaced owner keeps its namespace
    expect(setLabelOwner(tenant, ns)).toEqual(ns);
    expect(
      getLabelOwner(
        setLabelOwner(app, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team' } }),
      ),
    ).toEqual({ apiVersion: 'apps.example.com/v1', kind: 'App', namespace: 'team', name: 'web', uid: 'u-2' });
  });

  test('another owner (another uid, e.g. a recreated tenant of the same name) is refused; a label and annotation that disagree name no owner', () => {
    const ns = setLabelOwner(tenant, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'acme' } });
    const recreated = { ...tenant, metadata: { ...tenant.metadata, uid: 'u-9' } };
    expect(() => setLabelOwner(recreated, ns)).toThrow(AlreadyOwnedError);
    expect(() => setLabelOwner(recreated, ns)).toThrow('Namespace acme is already owned (by label) by Tenant acme');
    const copied = { ...ns, metadata: { ...ns.metadata, labels: { [OWNER_UID_LABEL]: 'u-9' } } };
    expect(getLabelOwner(copied)).toBeUndefined();
    expect(
      getLabelOwner({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'x', labels: { [OWNER_UID_LABEL]: 'u-1' }, annotations: { [OWNER_ANNOTATION]: 'not json' } },
      }),
    ).toBeUndefined();
    expect(() => setLabelOwner({ apiVersion: 'v1', kind: 'Tenant', metadata: { name: 'no-uid' } }, ns)).toThrow(
      'owner must have apiVersion, kind, metadata.name and metadata.uid',
    );
  });
});
