import { builtinModules } from 'module';
import { join } from 'path';
import { cycles, importGraph, packageImports, tsFiles } from './import-graph';

const LIB = join(__dirname, '../../lib');

/**
 * The layers of lib/, lowest first. A module may import from its own folder and from lower layers only;
 * modules in one layer are peers and do not import each other. A unit is a folder or a single file,
 * matched by the longest prefix.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['apimachinery'], // Kubernetes API-machinery knowledge, no cdk8s (the runtime may use it too)
  ['apiserver/schema'], // what the apiserver does with a CRD, bottom up
  ['apiserver/crd-manifest'],
  ['apiserver/cel'],
  ['apiserver/value-validation'],
  ['apiserver/crd-validation'],
  ['apiserver/admission-policy'], // what the apiserver does with a ValidatingAdmissionPolicy
  ['apiserver/builtin-validation'], // what the apiserver refuses in a built-in object on create
  ['apiserver/index'],
  ['synth-metadata', 'schema'], // what constructs attach for the app; the schema builder
  ['crd'], // constructs
  ['custom-resource', 'codegen', 'admission-policy'],
  ['operator'],
  ['policy', 'evolution', 'docs'], // app features
  ['report'],
  ['app'], // OperatorApp
  ['index'],
];

function unitOf(moduleId: string): string {
  const units = LAYERS.flat().filter((u) => moduleId === u || moduleId.startsWith(`${u}/`));
  if (units.length === 0) throw new Error(`lib/${moduleId}.ts is in no layer; add its folder to LAYERS`);
  return units.sort((a, b) => b.length - a.length)[0];
}

const rank = (unit: string) => LAYERS.findIndex((layer) => layer.includes(unit));

describe('lib layering', () => {
  const edges = importGraph(LIB);

  test('no import cycles between modules (type-only imports are erased and do not count)', () => {
    expect(cycles(edges.filter((e) => !e.typeOnly))).toEqual([]);
  });

  test('every import points to the own unit or a lower layer', () => {
    const upward = edges
      .map((e) => ({ ...e, fromUnit: unitOf(e.from), toUnit: unitOf(e.to) }))
      .filter((e) => e.fromUnit !== e.toUnit && rank(e.toUnit) >= rank(e.fromUnit))
      .map((e) => `lib/${e.from} -> lib/${e.to}`);
    expect(upward).toEqual([]);
  });

  test('`_`-prefixed modules are private to their folder', () => {
    const dir = (m: string) => m.split('/').slice(0, -1).join('/');
    const leaks = edges
      .filter((e) => e.to.split('/').pop()!.startsWith('_') && dir(e.from) !== dir(e.to))
      .map((e) => `lib/${e.from} -> lib/${e.to}`);
    expect(leaks).toEqual([]);
  });

  test('apimachinery and apiserver use no construct library (the runtime and tests can use them without cdk8s)', () => {
    const offenders = tsFiles(LIB)
      .filter((f) => /\/lib\/(apimachinery|apiserver)\//.test(f))
      .flatMap((f) =>
        packageImports(f)
          .filter((p) => /^(cdk8s|constructs)/.test(p))
          .map((p) => `${f.slice(LIB.length + 1)}: ${p}`),
      );
    expect(offenders).toEqual([]);
  });

  test('apimachinery imports only Node built-ins', () => {
    const offenders = tsFiles(join(LIB, 'apimachinery')).flatMap((f) =>
      packageImports(f)
        .filter((p) => !builtinModules.includes(p.replace(/^node:/, '')))
        .map((p) => `${f.slice(LIB.length + 1)}: ${p}`),
    );
    expect(offenders).toEqual([]);
  });
});
