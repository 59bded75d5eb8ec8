import { FIELDS_ADDED_SINCE_1_32 } from '../../../lib/apiserver/builtin-validation/decoding-fields-added';
import { extractAddedFields } from '../../../tools/vendor-openapi/added-fields';
import { getJsonFrom } from '../../../tools/vendor-openapi/extract';
import { describeApiServerVersion } from '../../envtest';

/**
 * The fields newer than the vendored 1.32 schemas that strict decoding knows are the real 1.36 apiserver's: the
 * committed lib/apiserver/builtin-validation/decoding-fields-added.ts must hold what `npx projen vendor-openapi-added`
 * reads from it. Regenerate it when this fails.
 */
describeApiServerVersion(
  'built-in fields added since 1.32',
  '1.36',
  (plane) => {
    test('equal what the live 1.36 apiserver serves (npx projen vendor-openapi-added)', async () => {
      const live = await extractAddedFields(getJsonFrom(plane()));
      expect(Object.keys(live.properties).length).toBeGreaterThan(10);
      expect(JSON.parse(JSON.stringify(FIELDS_ADDED_SINCE_1_32))).toStrictEqual(live);
    }, 60_000);
  },
  { shared: true },
);
