import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { checkCelRules } from '../../../lib/apiserver/cel/check-rules';
import { checkDefaults } from '../../../lib/apiserver/crd-validation/check-defaults';
import { KUBE_APISERVER_FIXTURES, SAMPLE_CONTROLLER_FIXTURES } from '../../fixtures/recorded/paths';

/** CRDs a real apiserver accepted: our CEL and default checks must not reject them. */
const ACCEPTED = [
  path.join(KUBE_APISERVER_FIXTURES, 'crd.yaml'),
  path.join(SAMPLE_CONTROLLER_FIXTURES, 'crd.yaml'),
  ...fs
    .readdirSync(path.join(__dirname, '../../../vendor/crds'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => path.join(__dirname, '../../../vendor/crds', f)),
];

describe('checks accept CRDs the apiserver accepted', () => {
  test.each(ACCEPTED)('%s', (file) => {
    for (const doc of parseAllDocuments(fs.readFileSync(file, 'utf8'))) {
      const crd = doc.toJS();
      crd.spec.versions.forEach((v: any, i: number) => {
        const base = `spec.versions[${i}].schema.openAPIV3Schema`;
        const schema = v.schema.openAPIV3Schema;
        expect(errorsOf([...checkCelRules(schema, base), ...checkDefaults(schema, base)])).toStrictEqual([]);
      });
    }
  });
});
