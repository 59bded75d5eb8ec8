import { fieldValues, parseFieldsV1, renderFieldsV1, serverSideApply, toDotPath, trackUpdate } from './managed-fields';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        tags: { 'type': 'array', 'x-kubernetes-list-type': 'set', 'items': { type: 'string' } },
        ports: { 'type': 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], 'items': { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
        args: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};
const ctx = (manager: string) => ({ manager, apiVersion: 'example.com/v1', scope: 'main' as const, schema });

describe('managedFields model', () => {
  test('FieldsV1 rendering: set items as v:, map items as k:, atomic lists as leaves, "." for owned maps', () => {
    const obj = { metadata: { name: 'x', labels: { a: 'b' } }, spec: { tags: ['x', 'y'], ports: [{ name: 'http', port: 80 }], args: ['--v'] } };
    const mf = trackUpdate(undefined, obj, ctx('m'))!;
    expect(mf[0].fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
      'f:spec': {
        '.': {},
        'f:args': {},
        'f:ports': { '.': {}, 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:tags': { '.': {}, 'v:"x"': {}, 'v:"y"': {} },
      },
    });
    expect(renderFieldsV1(parseFieldsV1(mf[0].fieldsV1))).toEqual(mf[0].fieldsV1);
  });

  test('an update moves ownership of changed fields only', () => {
    const v1 = { spec: { args: ['a'], tags: ['x'] } };
    const created = { ...v1, metadata: { managedFields: trackUpdate(undefined, v1, ctx('one')) } };
    const v2 = { ...created, spec: { args: ['b'], tags: ['x'] } };
    const mf = trackUpdate(created, v2, ctx('two'))!;
    expect(mf.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['one', { 'f:spec': { '.': {}, 'f:tags': { '.': {}, 'v:"x"': {} } } }],
      ['two', { 'f:spec': { 'f:args': {} } }],
    ]);
  });

  test('apply merges map-list items by key and reports conflicts with SMD paths', () => {
    const current = { spec: { ports: [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090 }] } };
    const owned = { ...current, metadata: { managedFields: trackUpdate(undefined, current, ctx('ctl')) } };
    const clash = serverSideApply(owned, { spec: { ports: [{ name: 'http', port: 8080 }] } }, { ...ctx('op'), scope: 'main' }, false);
    expect(clash.conflicts.map((c) => `${c.manager} ${c.path}`)).toEqual(['ctl .spec.ports[name="http"].port']);
    const forced = serverSideApply(owned, { spec: { ports: [{ name: 'http', port: 8080 }] } }, ctx('op'), true);
    expect(forced.object.spec.ports).toEqual([{ name: 'http', port: 8080 }, { name: 'metrics', port: 9090 }]);
  });

  test('toDotPath and fieldValues scopes', () => {
    expect(toDotPath(['f:spec', 'k:{"name":"c"}', 'f:image'].join('\u0001'))).toBe('.spec[name="c"].image');
    const obj = { spec: { a: 1 }, status: { b: 2 } };
    expect([...fieldValues(obj, 'status', undefined, false).keys()]).toEqual(['f:status\u0001f:b']);
    expect([...fieldValues(obj, 'main', undefined, false).keys()]).toEqual(['f:spec\u0001f:a']);
  });
});
