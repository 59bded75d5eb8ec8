/**
 * Writes lib/apiserver/admission-policy/builtin-openapi.json from a real kube-apiserver (runtime/envtest, the
 * binaries in KUBEBUILDER_ASSETS, v1.32.13 in this repository): `npx projen vendor-openapi`.
 * test/apiserver/admission-policy/vendored-openapi.test.ts fails when the committed file differs from the server's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractOpenApi, getJsonFrom, renderVendored } from './extract';
import { ControlPlane } from '../../runtime/envtest';

export const VENDORED_OPENAPI = join(__dirname, '../../lib/apiserver/admission-policy/builtin-openapi.json');

async function main(): Promise<void> {
  const plane = await ControlPlane.start();
  try {
    const vendored = await extractOpenApi(getJsonFrom(plane));
    writeFileSync(VENDORED_OPENAPI, renderVendored(vendored));
    console.log(
      `${VENDORED_OPENAPI}: ${vendored.serverVersion}, ${Object.keys(vendored.groupVersions).length} group-versions, ${Object.keys(vendored.schemas).length} schemas`,
    );
  } finally {
    await plane.stop();
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
