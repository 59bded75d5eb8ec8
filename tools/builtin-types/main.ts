/**
 * Writes runtime/builtins.ts from the vendored OpenAPI (see render.ts): `npx projen builtin-types`, after
 * `npx projen vendor-openapi` has refreshed lib/apiserver/admission-policy/builtin-openapi.json.
 */
import { writeFileSync } from 'node:fs';
import { BUILTINS_FILE, builtinKinds, renderBuiltins } from './render';

const kinds = builtinKinds();
writeFileSync(BUILTINS_FILE, renderBuiltins(kinds));
console.log(`${BUILTINS_FILE}: ${kinds.length} built-in kinds`);
