import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';
import { fieldsUnknownTo } from '../../../lib/apiserver/admission-policy/builtin-fields';
import { describeEachApiServerVersion } from '../../envtest';

/**
 * Fields of built-in objects a version does not know (its OpenAPI lacks them: kubectl's strict validation and
 * server-side apply refuse them): our verdict for each version against each apiserver's, and synth targeting 1.28.
 */
const pod = (extra: object) => ({ containers: [{ name: 'app', image: 'registry.example.com/app:1' }], ...extra });
const OBJECTS: Array<{ name: string; object: any; unknownTo128: string[] }> = [
  {
    name: 'a Deployment with an AppArmor profile (GA 1.30)',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'apparmor', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: {
          metadata: { labels: { app: 'a' } },
          spec: pod({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }),
        },
      },
    },
    unknownTo128: ['spec.template.spec.securityContext.appArmorProfile'],
  },
  {
    name: 'a Service with trafficDistribution (beta 1.31)',
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'traffic', namespace: 'default' },
      spec: { ports: [{ port: 80 }], trafficDistribution: 'PreferClose' },
    },
    unknownTo128: ['spec.trafficDistribution'],
  },
  {
    name: 'a Pod with a sleep preStop hook (1.29)',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sleep', namespace: 'default' },
      spec: {
        containers: [
          { name: 'app', image: 'registry.example.com/app:1', lifecycle: { preStop: { sleep: { seconds: 5 } } } },
        ],
      },
    },
    unknownTo128: ['spec.containers[0].lifecycle.preStop.sleep'],
  },
  {
    name: 'a plain Deployment',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'plain', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'p' } },
        template: { metadata: { labels: { app: 'p' } }, spec: pod({}) },
      },
    },
    unknownTo128: [],
  },
];

describe('fields a Kubernetes version does not know', () => {
  test.each(OBJECTS.map((o) => [o.name, o] as const))('%s: the fields 1.28 lacks, none 1.36 lacks', (_name, o) => {
    expect(fieldsUnknownTo(o.object, '1.28')).toStrictEqual(o.unknownTo128);
    expect(fieldsUnknownTo(o.object, '1.36')).toStrictEqual([]);
  });

  test("the versions between (no apiserver here) follow upstream's OpenAPI at their release tag", () => {
    const [apparmor, traffic, sleep] = OBJECTS.map((o) => o.object);
    // appArmorProfile is a field from 1.30, trafficDistribution from 1.30 (alpha), the sleep hook from 1.29
    expect(['1.29', '1.30', '1.31'].map((v) => fieldsUnknownTo(apparmor, v))).toStrictEqual([
      ['spec.template.spec.securityContext.appArmorProfile'],
      [],
      [],
    ]);
    expect(['1.29', '1.30', '1.31'].map((v) => fieldsUnknownTo(traffic, v))).toStrictEqual([
      ['spec.trafficDistribution'],
      [],
      [],
    ]);
    expect(['1.29', '1.30', '1.31', '1.33', '1.34', '1.35'].map((v) => fieldsUnknownTo(sleep, v))).toStrictEqual([
      [],
      [],
      [],
      [],
      [],
      [],
    ]);
  });

  test('synth targeting 1.28 fails naming the construct, the field and the version; targeting 1.30 and newer passes', () => {
    const synth = (min?: string) => {
      const app = new OperatorApp({
        outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'fields-')),
        report: false,
        policy: false,
        ...(min ? { kubernetesVersions: { min } } : {}),
      });
      new ApiObject(new Chart(app, 'chart'), 'svc', OBJECTS[1].object);
      try {
        app.synth();
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(synth()).toContain(
      // strict decoding's own words (`decoding.ts`), the versions that lack it and those that have it
      '[chart/svc] v1 Service traffic: on Kubernetes 1.28, 1.29: spec.trafficDistribution: strict decoding error: unknown field "spec.trafficDistribution" (a field this version does not have: Kubernetes 1.30 and newer have it)',
    );
    expect(synth('1.30')).toBe('');
  });
});

describeEachApiServerVersion(
  'fields a Kubernetes version does not know, on its apiserver',
  (plane, version) => {
    // pods are admitted only with their ServiceAccount (no token controller here)
    beforeAll(async () => {
      await plane().serviceAccount('default', 'default');
    });
    test.each(OBJECTS.map((o) => [o.name, o] as const))(
      '%s: server-side apply (strict) accepts it exactly where we find no unknown field',
      async (_name, o) => {
        const ours = fieldsUnknownTo(o.object, version).length === 0 ? 'accepted' : 'refused';
        const plural = { Deployment: 'deployments', Service: 'services', Pod: 'pods' }[o.object.kind as string]!;
        const base = o.object.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.object.apiVersion}`;
        const r = await plane().request(
          'PATCH',
          `${base}/namespaces/default/${plural}/${o.object.metadata.name}?fieldManager=test&dryRun=All&fieldValidation=Strict`,
          o.object,
          { contentType: 'application/apply-patch+yaml' },
        );
        expect({
          version,
          apiserver: r.code < 300 ? 'accepted' : 'refused',
          message: r.code < 300 ? undefined : r.body?.message,
        }).toStrictEqual({
          version,
          apiserver: ours,
          message: ours === 'refused' ? expect.stringContaining('field not declared in schema') : undefined,
        });
      },
    );
  },
  { shared: true },
);
