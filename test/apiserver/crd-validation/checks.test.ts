import { formatIssue, warningsOf, errorsOf } from '../../../lib/apimachinery/issue';
import { checkCrdNames, isProtectedGroup } from '../../../lib/apiserver/crd-validation/crd-names';
import {
  checkCrdSize,
  lastAppliedAnnotationBytes,
  manifestBytes,
  MAX_ANNOTATION_BYTES,
  MAX_CRD_BYTES,
} from '../../../lib/apiserver/crd-validation/crd-size';
import { checkListAndMapTypes } from '../../../lib/apiserver/crd-validation/list-map-types';
import { checkPrinterColumns } from '../../../lib/apiserver/crd-validation/printer-columns';
import { checkStructuralSchema } from '../../../lib/apiserver/crd-validation/structural-schema';
import { withApiserverDefaults } from '../../../lib/apiserver/crd-validation/validate-crd';
import { goRegexpError } from '../../../lib/apiserver/schema/go-regexp';
import { Schema } from '../../../lib/schema/schema';

describe('checks are pure functions located by basePath', () => {
  test('structural schema issues are prefixed with the given path', () => {
    const issues = checkStructuralSchema({ type: 'object', properties: { a: {} } }, 'openAPIV3Schema');
    expect(issues.map(formatIssue)).toStrictEqual([
      'openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields',
    ]);
  });

  test('schemas from the Schema builder pass the structural and list/map checks', () => {
    const schema = Schema.object({
      properties: {
        spec: Schema.object({
          properties: {
            port: Schema.intOrString(),
            labels: Schema.map(Schema.string()),
            template: Schema.embeddedResource(),
            conditions: Schema.array(Schema.object({ properties: { type: Schema.string() }, required: ['type'] }), {
              listMapKeys: ['type'],
            }),
            tags: Schema.array(Schema.string(), { listType: 'set' }),
          },
        }),
      },
    });
    expect(checkStructuralSchema(schema, 'root')).toStrictEqual([]);
    expect(checkListAndMapTypes(schema, 'root')).toStrictEqual([]);
  });

  test('printer columns without a schema only check syntax', () => {
    expect(checkPrinterColumns([{ name: 'A', type: 'string', jsonPath: '.anything' }], undefined, 'v')).toStrictEqual(
      [],
    );
  });

  test('the apiserver defaults singular and listKind before checking names', () => {
    const manifest: any = {
      metadata: { name: 'foos.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Foo', plural: 'foos' } },
    };
    expect(checkCrdNames(manifest).map(formatIssue)).toStrictEqual([
      'spec.names.singular: Required value',
      'spec.names.listKind: Required value',
    ]);
    expect(checkCrdNames(withApiserverDefaults(manifest))).toStrictEqual([]);
  });

  test.each([
    ['k8s.io', true],
    ['apps.k8s.io', true],
    ['x.kubernetes.io', true],
    ['kubernetes.io', true],
    ['example.com', false],
    ['notk8s.io', false],
    ['k8s.io.example.com', false],
  ])('isProtectedGroup(%s) is %s', (group, expected) => {
    expect(isProtectedGroup(group)).toBe(expected);
  });
});

describe('goRegexpError (RE2 dialect)', () => {
  test.each(['^(?i)(abort|warn)?$', '^(?P<name>[a-z]+)$', '^[a-z]+\\z', '(?s:.)+', '^[[:alpha:]]+$'])(
    'accepts RE2 syntax %s',
    (pattern) => {
      expect(goRegexpError(pattern)).toBeUndefined();
    },
  );
  test.each(['^(?=a)', '(?<!a)b', '(a)\\1', '([a-z', 'a{2,1}'])('rejects %s', (pattern) => {
    expect(goRegexpError(pattern)).toEqual(expect.any(String));
  });
});

describe('size limits at their exact boundaries', () => {
  /** A manifest whose JSON is exactly `bytes` long, padded through a description. */
  function manifestOf(bytes: number): any {
    const m: any = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x' },
      spec: { description: '' },
    };
    m.spec.description = 'x'.repeat(bytes - manifestBytes(m));
    expect(manifestBytes(m)).toBe(bytes);
    return m;
  }

  test('an object of 1.5 MiB minus one byte can be stored, 1.5 MiB cannot', () => {
    expect(errorsOf(checkCrdSize(manifestOf(MAX_CRD_BYTES - 1)))).toStrictEqual([]);
    expect(errorsOf(checkCrdSize(manifestOf(MAX_CRD_BYTES))).map(formatIssue)).toStrictEqual([
      expect.stringMatching(/^spec: Too long: .* 1572864 bytes/),
    ]);
  });

  test('the last-applied annotation may reach 262144 bytes but not exceed it', () => {
    const overhead = lastAppliedAnnotationBytes(manifestOf(1000)) - 1000;
    expect(warningsOf(checkCrdSize(manifestOf(MAX_ANNOTATION_BYTES - overhead)))).toStrictEqual([]);
    expect(warningsOf(checkCrdSize(manifestOf(MAX_ANNOTATION_BYTES - overhead + 1)))).toHaveLength(1);
  });
});
