// A synth workload for the benchmark: N CRDs (real-world schemas through the raw path, plus large
// generated schemas) and M example resources, either through cdk8s-operator (full validation) or
// as plain cdk8s ApiObjects (the baseline). Usage: synth-app.ts <ours|baseline> <N> <M> <outdir>
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, App, Chart } from 'cdk8s';
import * as yaml from 'yaml';
import { CrdManifest, CustomResource, CustomResourceDefinition, OperatorApp } from '../lib';

const [mode, nText, mText, outdir] = process.argv.slice(2);
const n = Number(nText);
const m = Number(mText);

const VENDORED = [
  'monitoring.coreos.com_servicemonitors.yaml',
  'monitoring.coreos.com_prometheusrules.yaml',
  'cert-manager.io_certificates.yaml',
  'monitoring.coreos.com_prometheuses.yaml',
].map((f) => yaml.parse(fs.readFileSync(path.join(__dirname, '..', 'vendor', 'crds', f), 'utf8')) as CrdManifest);

/** The i-th CRD: a real-world schema renamed into its own group, or every 2nd one a generated schema. */
function crdManifest(i: number): CrdManifest {
  const group = `g${i}.bench.example.com`;
  if (i % 2 === 0) {
    const base = VENDORED[(i / 2) % VENDORED.length];
    return {
      ...base,
      metadata: { ...base.metadata, name: `${base.spec.names.plural}.${group}` },
      spec: { ...base.spec, group },
    };
  }
  return generatedCrd(group, `Widget${i}`);
}

function generatedCrd(group: string, kind: string): CrdManifest {
  const leaf = (j: number) =>
    j % 3 === 0
      ? { type: 'integer', minimum: 0, maximum: 1000, description: `Count ${j}.` }
      : { type: 'string', maxLength: 63, pattern: '^[a-z0-9-]*$', description: `Name ${j}.` };
  const section = (k: number) => ({
    type: 'object',
    description: `Section ${k}.`,
    properties: Object.fromEntries(Array.from({ length: 25 }, (_, j) => [`field${j}`, leaf(j)])),
    'x-kubernetes-validations': [{ rule: 'self.field0 <= 1000', message: 'field0 too large' }],
  });
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  properties: Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`section${k}`, section(k)])),
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  } as CrdManifest;
}

function example(i: number) {
  const spec = Object.fromEntries(
    Array.from({ length: 5 }, (_, k) => [`section${k}`, { field0: i % 1000, field1: `name-${i}` }]),
  );
  return {
    apiVersion: 'examples.bench.example.com/v1',
    kind: 'Example',
    metadata: { name: `example-${i}`, namespace: 'default' },
    spec,
  };
}

const exampleCrd = generatedCrd('examples.bench.example.com', 'Example');
if (mode === 'ours') {
  const app = new OperatorApp({ outdir });
  const chart = new Chart(app, 'bench');
  for (let i = 0; i < n; i++) CustomResourceDefinition.fromManifest(chart, `crd${i}`, crdManifest(i));
  const crd = CustomResourceDefinition.fromManifest(chart, 'examples', exampleCrd);
  for (let i = 0; i < m; i++) new CustomResource(chart, `ex${i}`, { crd, ...example(i) });
  app.synth();
} else {
  const app = new App({ outdir });
  const chart = new Chart(app, 'bench');
  for (let i = 0; i < n; i++) new ApiObject(chart, `crd${i}`, crdManifest(i) as any);
  new ApiObject(chart, 'examples', exampleCrd as any);
  for (let i = 0; i < m; i++) new ApiObject(chart, `ex${i}`, example(i));
  app.synth();
}
