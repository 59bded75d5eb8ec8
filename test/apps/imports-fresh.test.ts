import { staleImports } from '../../lib';
import { generateAppImports, IMPORTS_DIR } from '../../apps/generate-imports';

test('imports/ matches the apps\' CRDs (run `npx projen import` when this fails)', async () => {
  const files = await generateAppImports();
  expect(files.map(f => f.path)).toEqual(['database.example.com.ts', 'samplecontroller.k8s.io.ts']);
  expect(staleImports(IMPORTS_DIR, files)).toEqual([]);
});
