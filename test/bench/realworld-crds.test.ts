import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * docs/crds.md's and docs/API.md's figures about the real-world CRD corpus on each version come from the committed
 * output of bench/realworld-crds.ts (bench/latest/realworld-crds.json: every CRD server-side applied on the real
 * apiservers of 1.28, 1.32 and 1.36), and our verdict equals each apiserver's there.
 */
const ROOT = path.join(__dirname, '../..');
const report = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/latest/realworld-crds.json'), 'utf8'));
const on = (v: string) => report.results.find((r: any) => r.kubernetesVersion === v);
const text = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\s+/g, ' ');

test('each version refuses what bench/latest/realworld-crds.json says, and ours agrees everywhere', () => {
  expect(report.results.map((r: any) => r.kubernetesVersion)).toStrictEqual(['1.28', '1.32', '1.36']);
  for (const r of report.results) expect(r.agree).toBe(r.files);
  expect(on('1.32').refused).toBe(0);
  expect(on('1.36').refused).toBe(0);
});

test('docs/crds.md and docs/API.md state those figures', () => {
  const r = on('1.28');
  expect(text('docs/crds.md')).toContain(
    `(1.28 refuses ${r.refused}, and synth targeting 1.28 refuses exactly those: \`bench/latest/realworld-crds.json\`)`,
  );
  expect(text('docs/API.md')).toContain(
    `1.28 refuses ${r.refused} (${r.byCause.selectableFields} \`selectableFields\`, ${r.byCause['format.*']} \`format.*\`, ` +
      `${r.byCause['CEL cost estimate']} the CEL cost estimate), 1.32 and 1.36 none`,
  );
});
