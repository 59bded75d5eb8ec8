import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { ControlPlane, describeRealApiServer } from '../envtest';

/**
 * Real CRDs of widely used operators, each accepted by kube-apiserver v1.32: the raw import path must pass
 * them with no error and emit them unchanged, and in the same run the real apiserver must accept each one.
 * The vendored subset always runs; the whole corpus of ../shared runs when it is there.
 */
const VENDORED = path.join(__dirname, '../fixtures/realworld-crds');
const SHARED = path.join(__dirname, '../../../shared/corpus/realworld');

function corpus(): string[] {
  const byName = new Map<string, string>();
  for (const dir of [SHARED, VENDORED]) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter(n => n.endsWith('.yaml'))) byName.set(f, path.join(dir, f));
  }
  return [...byName.values()].sort();
}

const FILES = corpus();

describe('real-world CRDs through CustomResourceDefinition.fromFile', () => {
  test('the corpus is there (vendored subset at least)', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(7);
    if (fs.existsSync(SHARED)) expect(FILES.length).toBeGreaterThanOrEqual(201);
  });

  test.each(FILES.map(f => [path.basename(f), f]))('%s: no error, emitted unchanged', (_name, file) => {
    const chart = new Chart(new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-')) }), 'corpus');
    const crd = CustomResourceDefinition.fromFile(chart, 'crd', file);
    expect(crd.node.validate()).toStrictEqual([]);
    // parsed by another YAML library than fromFile's
    const written = yaml.parseAllDocuments(fs.readFileSync(file, 'utf8')).map(d => d.toJS()).filter(d => d != null);
    expect(Testing.synth(chart)).toStrictEqual(written);
  });
});

describeRealApiServer('real-world CRDs on kube-apiserver', plane => {
  const created = new Set<string>();
  test.each(FILES.map(f => [path.basename(f), f]))('%s: accepted', async (_name, file) => {
    const text = fs.readFileSync(file, 'utf8');
    const name = yaml.parse(text).metadata.name;
    // Gateway API standard and experimental define the same CRD names: the earlier one is deleted first
    if (created.has(name)) await deleteCrd(plane(), name);
    // the file as written, read by the apiserver's own YAML decoder
    const r = await plane().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', text, { contentType: 'application/yaml' });
    expect({ code: r.code, message: r.body?.message }).toStrictEqual({ code: 201, message: undefined });
    created.add(name);
  }, 60_000);
});

async function deleteCrd(plane: ControlPlane, name: string): Promise<void> {
  const at = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  await plane.request('DELETE', at);
  for (let i = 0; i < 300; i++) {
    if ((await plane.request('GET', at)).code === 404) return;
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error(`CRD ${name} still there 30 s after its deletion`);
}
