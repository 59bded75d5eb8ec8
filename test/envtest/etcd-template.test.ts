import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_APISERVER_TAG } from '.';
import { ControlPlane, ControlPlaneOptions, findControlPlaneBinaries, type Identity } from '../../runtime/envtest';
import { copyTemplateKeys, saveTemplate, templatePath } from '../../runtime/envtest/etcd-template';

/**
 * etcd templates (runtime/envtest/etcd-template.ts): a plane started from one serves the bootstrap objects a fresh
 * plane makes, and only those; what another plane wrote after its bootstrap is not there.
 */
const lookup = findControlPlaneBinaries(process.env);
const describeIfBinaries = 'missing' in lookup && !process.env.ENVTEST_REQUIRED ? describe.skip : describe;

/** The names of what kube-apiserver writes at its first start, by resource. */
async function bootstrapObjects(plane: ControlPlane): Promise<Record<string, string[]>> {
  const resources = [
    '/api/v1/namespaces',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    '/apis/rbac.authorization.k8s.io/v1/roles',
    '/apis/rbac.authorization.k8s.io/v1/rolebindings',
    '/apis/scheduling.k8s.io/v1/priorityclasses',
    '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
    '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
    '/api/v1/services',
    '/api/v1/configmaps',
  ];
  const out: Record<string, string[]> = {};
  for (const path of resources) {
    const r = await plane.request('GET', path);
    expect(r.code).toBe(200);
    out[path] = r.body.items.map((o: { metadata: { namespace?: string; name: string } }) =>
      [o.metadata.namespace, o.metadata.name].filter(Boolean).join('/'),
    );
    out[path].sort();
  }
  return out;
}

async function uidOf(plane: ControlPlane, path: string): Promise<string> {
  const r = await plane.request('GET', path);
  expect(r.code).toBe(200);
  return r.body.metadata.uid;
}

describeIfBinaries(`etcd templates ${REAL_APISERVER_TAG}`, () => {
  const opts: ControlPlaneOptions = { controllerManager: false, startTimeoutMs: 150_000 };
  let templateDir: string;
  const planes: ControlPlane[] = [];
  const start = async (o: ControlPlaneOptions) => {
    const plane = await ControlPlane.start({ ...opts, ...o });
    planes.push(plane);
    return plane;
  };
  beforeAll(() => {
    templateDir = mkdtempSync(join(tmpdir(), 'etcd-templates-'));
  });
  afterAll(async () => {
    for (const plane of planes) await plane.stop();
    rmSync(templateDir, { recursive: true, force: true });
  });

  test("a plane from a template serves what a fresh plane bootstraps, the template's keys but its own tokens, and nothing written after the bootstrap", async () => {
    // the first start of a configuration only notes it; the second makes the template
    await (await ControlPlane.start({ ...opts, templateDir })).stop();
    const templates = () => readdirSync(templateDir).filter((f) => !f.endsWith('.seen') && !f.endsWith('.keys'));
    expect(templates()).toHaveLength(0);
    const first = await start({ templateDir });
    expect(templates()).toHaveLength(1);
    expect(readdirSync(join(templateDir, `${templates()[0]}.keys`)).sort()).toStrictEqual([
      'apiserver.crt',
      'apiserver.key',
      'sa.key',
      'sa.pub',
    ]);
    // written after the template was taken: a later plane must not see it
    const made = await first.request('POST', '/api/v1/namespaces', { metadata: { name: 'after-the-bootstrap' } });
    expect(made.code).toBe(201);

    const fromTemplate = await start({ templateDir });
    const fresh = await start({ templateDir: '' });
    expect(templates()).toHaveLength(1);

    // the same etcd data: the bootstrap's objects have the first plane's UIDs, not new ones
    expect(await uidOf(fromTemplate, '/api/v1/namespaces/kube-system')).toBe(
      await uidOf(first, '/api/v1/namespaces/kube-system'),
    );
    expect(await uidOf(fresh, '/api/v1/namespaces/kube-system')).not.toBe(
      await uidOf(first, '/api/v1/namespaces/kube-system'),
    );
    expect((await fromTemplate.request('GET', '/api/v1/namespaces/after-the-bootstrap')).code).toBe(404);
    expect(await bootstrapObjects(fromTemplate)).toStrictEqual(await bootstrapObjects(fresh));
    // the template's keys: the serving certificate and the ServiceAccount key of the plane that made it (a fresh plane
    // makes its own), while every token stays its own plane's
    expect(fromTemplate.ca).toBe(first.ca);
    expect(fresh.ca).not.toBe(first.ca);
    expect(readFileSync(join(fromTemplate.dir, 'sa.pub'), 'utf8')).toBe(
      readFileSync(join(first.dir, 'sa.pub'), 'utf8'),
    );
    expect((await fromTemplate.request('GET', '/api/v1/namespaces', undefined, { identity: first.admin })).code).toBe(
      401,
    );
    const whoAmI = (plane: ControlPlane, identity: Identity) =>
      plane.request(
        'POST',
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        { identity },
      );
    const account = await first.serviceAccount('default', 'template-keys');
    expect((await whoAmI(first, account)).code).toBe(201);
    // signed by the same key, but issued by the first plane's URL
    expect((await whoAmI(fromTemplate, account)).code).toBe(401);
    const own = await fromTemplate.serviceAccount('default', 'template-keys');
    const review = await whoAmI(fromTemplate, own);
    expect(review.code).toBe(201);
    expect(review.body.status.userInfo.username).toBe('system:serviceaccount:default:template-keys');
  }, 300_000);

  test('other apiserver flags get a template of their own', async () => {
    const flags = ['--runtime-config=storagemigration.k8s.io/v1alpha1=true'];
    const binaries = 'binaries' in lookup ? lookup.binaries : undefined;
    expect(templatePath(templateDir, binaries!, flags)).not.toBe(templatePath(templateDir, binaries!, []));
  });
});

describe('etcd templates: saving', () => {
  test('the first copy saved stays, and its keys; a later one is dropped without leaving its staging folders', () => {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-template-save-'));
    try {
      const template = join(dir, 'templates', 'etcd-x');
      for (const content of ['first', 'second']) {
        const data = join(dir, `data-${content}`);
        mkdirSync(join(data, 'member'), { recursive: true });
        writeFileSync(join(data, 'member', 'db'), content);
        writeFileSync(join(dir, `sa-${content}.key`), content);
        saveTemplate(data, template, { 'sa.key': join(dir, `sa-${content}.key`) });
      }
      expect(readdirSync(join(dir, 'templates')).sort()).toStrictEqual(['etcd-x', 'etcd-x.keys']);
      expect(existsSync(join(template, 'member', 'db'))).toBe(true);
      expect(readFileSync(join(template, 'member', 'db'), 'utf8')).toBe('first');
      // a plane copies the first writer's keys; a template without the key asked for gives none
      const copied = join(dir, 'plane-sa.key');
      expect(copyTemplateKeys(template, { 'sa.key': copied })).toBe(true);
      expect(readFileSync(copied, 'utf8')).toBe('first');
      expect(copyTemplateKeys(template, { 'sa.key': copied, 'apiserver.key': join(dir, 'plane-apiserver.key') })).toBe(
        false,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
