import { FakeApiServer, startFakeApiServer } from '.';
import { http } from './http';

describe('Events: one resource served as core/v1 and events.k8s.io/v1', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer();
  });
  afterEach(async () => {
    await s.close();
  });

  const v1Event = (extra: any = {}) => ({
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' },
    eventTime: '2026-11-22T03:00:00.000000Z', reportingController: 'example.com/op', reportingInstance: 'op-1',
    action: 'Reconcile', reason: 'Synced', type: 'Normal', note: 'done',
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'default' }, ...extra,
  });

  test('an events.k8s.io/v1 Event is visible through core/v1 with renamed fields', async () => {
    const created = await http(s.url, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', v1Event());
    expect(created.code).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'done', regarding: { name: 'cm' }, reportingController: 'example.com/op' });
    const core = await http(s.url, 'GET', '/api/v1/namespaces/default/events/e1');
    expect(core.body).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'done', involvedObject: { name: 'cm' }, reportingComponent: 'example.com/op' });
    const list = await http(s.url, 'GET', '/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dcm');
    expect(list.body.items).toHaveLength(1);
  });

  test('strict validation for events.k8s.io/v1 creates', async () => {
    const bad = await http(s.url, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', v1Event({ eventTime: undefined, type: 'Info', reportingController: undefined }));
    expect(bad.code).toBe(422);
    // without eventTime the legacy branch applies (so no reportingController check), then the strict rules
    expect(bad.body.details.causes.map((c: any) => `${c.field}: ${c.message}`)).toEqual(['eventTime: Required value', 'type: Invalid value: "": has invalid value: Info']);
    const noController = await http(s.url, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', v1Event({ reportingController: undefined, action: undefined }));
    expect(noController.body.details.causes.map((c: any) => `${c.field}: ${c.message}`)).toEqual(['reportingController: Required value', 'action: Required value']);
    const legacy = await http(s.url, 'POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'old' }, involvedObject: { kind: 'ConfigMap', name: 'cm', namespace: 'other' }, reason: 'X', message: 'y',
    });
    expect(legacy.code).toBe(422);
    expect(legacy.body.details.causes[0]).toEqual({ reason: 'FieldValueInvalid', field: 'involvedObject.namespace', message: 'Invalid value: "other": does not match event.namespace' });
  });
});
