import * as fs from 'node:fs';
import * as path from 'node:path';
import { CUSTOM_RESOURCE_CHANGES } from '../../lib/apimachinery/kubernetes-versions';

/**
 * Synth checks a custom resource once per `customResourceModelOf` of the app's range: every version change the
 * checks of a custom resource read must be listed in CUSTOM_RESOURCE_CHANGES, or versions that check otherwise would
 * share one check.
 */
const ROOT = path.join(__dirname, '../../lib');
const FILES = [
  ...['apiserver/value-validation', 'apiserver/schema'].flatMap((d) =>
    fs
      .readdirSync(path.join(ROOT, d))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(d, f)),
  ),
  'apimachinery/names.ts',
  'apimachinery/field-value.ts',
  'apimachinery/field-error-details.ts',
  'apiserver/cel/evaluate.ts',
];

test('every change the custom-resource checks read is in CUSTOM_RESOURCE_CHANGES', () => {
  const read = new Set(
    FILES.flatMap((f) =>
      [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/since\([^,()]+, '([A-Za-z]+)'\)/g)].map((m) => m[1]),
    ),
  );
  expect(read.size).toBeGreaterThan(5);
  expect([...read].filter((c) => !CUSTOM_RESOURCE_CHANGES.includes(c as never)).sort()).toStrictEqual([]);
});
