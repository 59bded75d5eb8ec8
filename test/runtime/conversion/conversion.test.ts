import { Testing } from 'cdk8s';
import { CustomResourceDefinition, Schema } from '../../../lib';
import { rulesForContract } from '../../../lib/operator/contract-rules';
import { defineContract, KubeObject } from '../../../runtime';
import { assertContractGrants } from '../../../runtime/contract';
import { ConversionError, defineConversion, handleConversionReview } from '../../../runtime/conversion';

// A kind whose v1 `size` (a string) is v2's `sizeGi` (a number), and whose v2 `tier` v1 cannot express.
type V1 = { apiVersion: 'ex.com/v1'; kind: 'Disk'; metadata?: Record<string, any>; spec?: { size?: string } };
type V2 = {
  apiVersion: 'ex.com/v2';
  kind: 'Disk';
  metadata?: Record<string, any>;
  spec?: { sizeGi?: number; tier?: string };
};
const DISK = defineConversion<V2, { v1: V1 }>({
  group: 'ex.com',
  kind: 'Disk',
  hub: 'v2',
  spokes: {
    v1: {
      toHub: (v1) => ({
        ...v1,
        apiVersion: 'ex.com/v2',
        spec: v1.spec && { sizeGi: v1.spec.size === undefined ? undefined : parseInt(v1.spec.size, 10) },
      }),
      fromHub: (v2) => ({
        ...v2,
        apiVersion: 'ex.com/v1',
        spec: v2.spec && { size: v2.spec.sizeGi === undefined ? undefined : `${v2.spec.sizeGi}Gi` },
      }),
    },
  },
});
const meta = { name: 'd', namespace: 'ns', uid: 'u', resourceVersion: '3', generation: 2 };

describe('defineConversion', () => {
  test('refuses a malformed declaration, listing every problem', () => {
    expect(() =>
      defineConversion<KubeObject, { v2: KubeObject }>({
        group: 'nodot',
        kind: '',
        hub: 'v2',
        spokes: { v2: { toHub: (x) => x, fromHub: (x) => x } },
      }),
    ).toThrow(
      /invalid conversion of \.nodot:\n {2}- group: must be an API group with a dot, got "nodot"\n {2}- kind: must be set, got ""\n {2}- spokes\.v2: the hub converts to nothing/,
    );
  });

  test('converts both ways through the hub; unchanged when already at the desired version', () => {
    const v1: KubeObject = { apiVersion: 'ex.com/v1', kind: 'Disk', metadata: meta, spec: { size: '10Gi' } };
    const v2 = DISK.convert(v1, 'ex.com/v2');
    expect(v2).toEqual({ apiVersion: 'ex.com/v2', kind: 'Disk', metadata: meta, spec: { sizeGi: 10 } });
    expect(DISK.convert(v2, 'ex.com/v1')).toEqual(v1);
    expect(DISK.convert(v1, 'ex.com/v1')).toBe(v1);
  });

  test('what the spoke cannot express is kept in <group>/conversion-data and restored; the hub never shows the annotation', () => {
    const v2: KubeObject = {
      apiVersion: 'ex.com/v2',
      kind: 'Disk',
      metadata: { ...meta, annotations: { keep: 'me' } },
      spec: { sizeGi: 10, tier: 'fast' },
    };
    const v1 = DISK.convert(v2, 'ex.com/v1');
    expect(v1.metadata?.annotations).toEqual({
      keep: 'me',
      'ex.com/conversion-data': '{"lost":[{"path":["spec","tier"],"value":"fast"}]}',
    });
    expect(DISK.convert(v1, 'ex.com/v2')).toEqual(v2);
    // a stale copy of the annotation on a hub object is not carried into the spoke
    const copied = {
      ...v2,
      spec: { sizeGi: 1 },
      metadata: { ...meta, annotations: { 'ex.com/conversion-data': '{"lost":[]}' } },
    };
    expect(DISK.convert(copied, 'ex.com/v1').metadata?.annotations).toBeUndefined();
  });

  test('only labels and annotations of the metadata can change; apiVersion and kind are set by the runtime', () => {
    const sneaky = defineConversion<KubeObject, { v1: KubeObject }>({
      group: 'ex.com',
      kind: 'Disk',
      hub: 'v2',
      spokes: {
        v1: {
          toHub: (o) => ({ ...o, kind: 'Other', metadata: { name: 'renamed', labels: { added: 'yes' } } }),
          fromHub: (o) => o,
        },
      },
    });
    expect(sneaky.convert({ apiVersion: 'ex.com/v1', kind: 'Disk', metadata: meta }, 'ex.com/v2')).toEqual({
      apiVersion: 'ex.com/v2',
      kind: 'Disk',
      metadata: { ...meta, labels: { added: 'yes' } },
    });
  });

  test('failures name the object, the direction and the cause', () => {
    const throwing = defineConversion<KubeObject, { v1: KubeObject }>({
      group: 'ex.com',
      kind: 'Disk',
      hub: 'v2',
      spokes: {
        v1: {
          toHub: () => {
            throw new Error('bad size');
          },
          fromHub: () => 42 as any,
        },
      },
    });
    const obj = { apiVersion: 'ex.com/v1', kind: 'Disk', metadata: meta };
    expect(() => throwing.convert(obj, 'ex.com/v2')).toThrow(
      new ConversionError('Disk ns/d: conversion v1 → v2 failed: bad size'),
    );
    expect(() => throwing.convert({ ...obj, apiVersion: 'ex.com/v2' }, 'ex.com/v1')).toThrow(
      'Disk ns/d: conversion v2 → v1 returned 42, not an object',
    );
    expect(() => DISK.convert(obj, 'ex.com/v9')).toThrow(
      'Disk ns/d: desired apiVersion "ex.com/v9" is not one of ex.com/v2, ex.com/v1',
    );
    expect(() =>
      DISK.convert({ ...obj, metadata: { ...meta, annotations: { 'ex.com/conversion-data': 'nope' } } }, 'ex.com/v2'),
    ).toThrow(/annotation ex.com\/conversion-data is not what a conversion wrote/);
  });
});

describe('handleConversionReview', () => {
  const review = (objects: unknown[], desiredAPIVersion = 'ex.com/v2') => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'req-1', desiredAPIVersion, objects },
  });

  test('converts every object in order and echoes the uid', () => {
    const a = { apiVersion: 'ex.com/v1', kind: 'Disk', metadata: { ...meta, name: 'a' }, spec: { size: '1Gi' } };
    const b = { apiVersion: 'ex.com/v2', kind: 'Disk', metadata: { ...meta, name: 'b' }, spec: { sizeGi: 2 } };
    expect(handleConversionReview([DISK], review([a, b]))).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'req-1',
        result: { status: 'Success' },
        convertedObjects: [{ ...a, apiVersion: 'ex.com/v2', spec: { sizeGi: 1 } }, b],
      },
    });
  });

  test('one failing object fails the whole review with its message; malformed reviews fail, never throw', () => {
    const bad = { apiVersion: 'ex.com/v1', kind: 'Disk', metadata: meta, spec: { size: '1Gi' } };
    expect(handleConversionReview([DISK], review([bad], 'ex.com/v3')).response).toEqual({
      uid: 'req-1',
      convertedObjects: [],
      result: {
        status: 'Failure',
        message: 'Disk ns/d: desired apiVersion "ex.com/v3" is not one of ex.com/v2, ex.com/v1',
      },
    });
    expect(handleConversionReview([DISK], review([{ ...bad, kind: 'Cat' }])).response?.result).toEqual({
      status: 'Failure',
      message: 'request.objects[0]: this webhook converts Disk.ex.com, not Cat.ex.com',
    });
    expect(
      handleConversionReview([DISK], { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview' }).response
        ?.result?.status,
    ).toBe('Failure');
    expect(handleConversionReview([DISK], null).response).toEqual({
      uid: '',
      convertedObjects: [],
      result: {
        status: 'Failure',
        message: 'expected an apiextensions.k8s.io/v1 ConversionReview, got apiVersion undefined, kind undefined',
      },
    });
    expect(
      handleConversionReview([DISK], { ...review([]), request: { desiredAPIVersion: 'ex.com/v2', objects: [] } })
        .response?.result?.message,
    ).toBe('request.uid: must be set');
  });
});

describe('contract.conversion', () => {
  const DISK_REF = { apiVersion: 'ex.com/v2', kind: 'Disk', plural: 'disks' };

  test('serving conversion and migrating storage needs the kind in contract.conversion', () => {
    expect(() =>
      assertContractGrants('conversion', defineContract({ watches: [DISK_REF] }), [
        { use: 'conversion', resource: DISK_REF },
      ]),
    ).toThrow(
      'converting and migrating ex.com/v2 Disk needs its CRD (get, patch, /status update) and list, update on disks.ex.com in every namespace: declare it in contract.conversion',
    );
    expect(() =>
      assertContractGrants('conversion', defineContract({ watches: [DISK_REF], conversion: [DISK_REF] }), [
        { use: 'conversion', resource: DISK_REF },
      ]),
    ).not.toThrow();
  });

  test('the chart grants it cluster-wide, the CRD and its /status by name, even for a namespaced operator', () => {
    const crd = new CustomResourceDefinition(Testing.chart(), 'Disk', {
      group: 'ex.com',
      kind: 'Disk',
      versions: [{ name: 'v2', spec: Schema.object({ properties: { sizeGi: Schema.integer() } }) }],
    });
    const rules = rulesForContract({ watches: [crd], conversion: [crd] }, { crds: [crd], watchNamespaces: ['team-a'] });
    expect(
      rules.clusterRules.map((r) => [r.apiGroup, r.resource, r.verbs.join(','), r.resourceNames?.join(',')]),
    ).toEqual([
      ['ex.com', 'disks', 'list,update', undefined],
      ['apiextensions.k8s.io', 'customresourcedefinitions', 'get,patch', 'disks.ex.com'],
      ['apiextensions.k8s.io', 'customresourcedefinitions/status', 'update', 'disks.ex.com'],
      // the in-tree StorageVersionMigration: create (not limitable by name), then only the one it names
      ['storagemigration.k8s.io', 'storageversionmigrations', 'create', undefined],
      ['storagemigration.k8s.io', 'storageversionmigrations', 'get,delete', 'v2.disks.ex.com'],
    ]);
    expect(() =>
      rulesForContract(
        { watches: [crd], conversion: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] },
        { crds: [crd] },
      ),
    ).toThrow(
      "contract.conversion[0]: 'apps/Deployment' is not defined by one of the operator's CRDs (pass it in crds); only custom kinds are converted",
    );
  });
});
