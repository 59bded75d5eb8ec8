import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { BUILTINS_FILE, builtinKinds, renderBuiltins, VENDORED_OPENAPI_FILE } from '../../tools/builtin-types/render';

describe('runtime/builtins.ts is generated from the vendored OpenAPI', () => {
  test('the committed file is what `npx projen builtin-types` writes (stale output fails here)', () => {
    expect(readFileSync(BUILTINS_FILE, 'utf8')).toBe(renderBuiltins());
  });

  test('every kind the vendored discovery lists is typed, once, with its plural and scope', () => {
    const vendored = JSON.parse(readFileSync(VENDORED_OPENAPI_FILE, 'utf8')) as {
      groupVersions: Record<string, Record<string, { kind: string; namespaced: boolean }>>;
    };
    const served = Object.entries(vendored.groupVersions)
      .flatMap(([gv, rs]) => Object.entries(rs).map(([plural, r]) => `${gv} ${r.kind} ${plural} ${r.namespaced}`))
      .sort();
    const kinds = builtinKinds();
    expect(kinds.map((k) => `${k.apiVersion} ${k.kind} ${k.plural} ${k.namespaced}`).sort()).toStrictEqual(served);
    expect(served.length).toBeGreaterThan(50);
    expect(new Set(kinds.map((k) => k.constName)).size).toBe(kinds.length);
  });

  test('a kind served by a newer apiserver appears in the output; one client-node has no model for is refused by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'builtins-'));
    try {
      const vendored = JSON.parse(readFileSync(VENDORED_OPENAPI_FILE, 'utf8'));
      vendored.groupVersions['resource.k8s.io/v1'] = { deviceclasses: { kind: 'DeviceClass', namespaced: false } };
      writeFileSync(join(dir, 'a.json'), JSON.stringify(vendored));
      expect(renderBuiltins(builtinKinds(join(dir, 'a.json')), 'v1.34.0')).toContain(
        "export const DEVICECLASS: TypedResourceRef<DeviceClass> = resourceRef<DeviceClass>({ apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', plural: 'deviceclasses' });",
      );
      vendored.groupVersions['example.k8s.io/v1'] = { widgets: { kind: 'Widget', namespaced: true } };
      writeFileSync(join(dir, 'b.json'), JSON.stringify(vendored));
      expect(() => builtinKinds(join(dir, 'b.json'))).toThrow(
        '@kubernetes/client-node has no model for example.k8s.io/v1 Widget',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
