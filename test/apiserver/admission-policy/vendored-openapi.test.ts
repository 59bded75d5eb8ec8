import { readFileSync } from 'node:fs';
import { extractOpenApi, getJsonFrom, renderVendored } from '../../../tools/vendor-openapi/extract';
import { VENDORED_OPENAPI } from '../../../tools/vendor-openapi/main';
import { describeRealApiServer } from '../../envtest';

/**
 * The built-in schemas the policy type checker uses are the real server's: the committed
 * lib/apiserver/admission-policy/builtin-openapi.json must be exactly what `npx projen vendor-openapi` writes from
 * the kube-apiserver in KUBEBUILDER_ASSETS (v1.32.13). Regenerate it when this fails.
 */
describeRealApiServer(
  'vendored built-in OpenAPI',
  (plane) => {
    test('equals what the live apiserver serves (npx projen vendor-openapi)', async () => {
      const live = await extractOpenApi(getJsonFrom(plane()));
      expect(live.serverVersion).toBe('v1.32.13');
      expect(Object.keys(live.schemas).length).toBeGreaterThan(400);
      expect(readFileSync(VENDORED_OPENAPI, 'utf8') === renderVendored(live)).toBe(true);
    }, 60_000);
  },
  { shared: true },
);
