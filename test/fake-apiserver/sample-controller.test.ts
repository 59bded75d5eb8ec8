import { FakeApiServer, startFakeApiServer } from '.';
import { exampleFoo, fooCrd, sampleDbCrd } from './fixtures';
import { http } from './http';

const FOOS = '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos';

describe('sample-controller Foo CRD created through the API', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer();
  });
  afterEach(async () => {
    await s.close();
  });

  test('the upstream CRD is accepted (protected group, unapproved annotation) and example-foo validates', async () => {
    const crd = await http(s.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', fooCrd());
    expect(crd.code).toBe(201);
    expect(crd.body.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual([
      'NamesAccepted=True', 'Established=True', 'KubernetesAPIApprovalPolicyConformant=False',
    ]);
    expect(crd.body.spec.names).toMatchObject({ singular: 'foo', listKind: 'FooList' });
    const example = exampleFoo();
    const created = await http(s.url, 'POST', FOOS, example);
    expect(created.code).toBe(201);
    expect(created.body.status).toBeUndefined();
    const tooMany = await http(s.url, 'POST', FOOS, { ...example, metadata: { name: 'big' }, spec: { ...example.spec, replicas: 11 } });
    expect(tooMany.code).toBe(422);
    expect(tooMany.body.message).toBe('Foo.samplecontroller.k8s.io "big" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10');
    const status = await http(s.url, 'PUT', `${FOOS}/example-foo/status`, { ...created.body, status: { availableReplicas: 1 } });
    expect(status.body.status).toEqual({ availableReplicas: 1 });
    expect(status.body.metadata.generation).toBe(1);
  });

  test('a protected group without the approval annotation is rejected; a broken CRD gets causes', async () => {
    const crd = fooCrd();
    delete crd.metadata.annotations;
    const r = await http(s.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(r.code).toBe(422);
    expect(r.body.details.causes.map((c: any) => c.field)).toEqual(['metadata.annotations[api-approved.kubernetes.io]']);
    const bad = sampleDbCrd();
    bad.spec.versions[0].storage = false;
    const noStorage = await http(s.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
    expect(noStorage.code).toBe(422);
    expect(noStorage.body.details.causes.map((c: any) => c.field)).toContain('spec.versions');
  });
});
