import { costModelOf, KUBERNETES_VERSIONS, minorOf } from '../../../lib/apimachinery/kubernetes-versions';
import { BUILTIN_FIELDS_MISSING } from '../../../lib/apiserver/admission-policy/builtin-fields-by-version';
import { DYN } from '../../../lib/apiserver/cel/cel-types';
import {
  CEL_LIBRARIES,
  celEnvironment,
  CelLibrary,
  NEWEST_MEASURED_CEL_MINOR,
  upstreamOffers,
} from '../../../lib/apiserver/cel/environment';
import { checkExpression } from '../../../lib/apiserver/cel/type-checker';
import { UPSTREAM_CEL_ENVIRONMENT } from '../../../lib/apiserver/cel/upstream-base-env';
import { parseGoStructs } from '../../../tools/vendor-openapi/go-types';

/**
 * Kubernetes 1.37, which has no apiserver here, from upstream's data: the CEL environment from k8s.io/apiserver's
 * base.go at v0.37.0-beta.0 (lib/apiserver/cel/upstream-base-env.ts), the built-in fields from k8s.io/api's Go types
 * (builtin-fields-by-version.ts). The data is trusted for 1.37 because it says what the measured versions do.
 */
const LIBRARIES = Object.keys(CEL_LIBRARIES) as CelLibrary[];
const upstreamOf = (l: CelLibrary): string | undefined => (CEL_LIBRARIES[l] as { upstream?: string }).upstream;

describe('the CEL environment from upstream base.go', () => {
  test('base.go names every library the table maps to it', () => {
    const options = UPSTREAM_CEL_ENVIRONMENT.baseOpts.flatMap((e) => e.options as readonly string[]);
    const unmapped = LIBRARIES.filter((l) => upstreamOf(l) && !options.some((o) => o.startsWith(upstreamOf(l)!)));
    expect(unmapped).toStrictEqual([]);
  });

  test('base.go agrees with every version up to 1.36 (measured on 1.28, 1.32 and 1.36), IP and CIDR aside', () => {
    const disagreements: string[] = [];
    for (const library of LIBRARIES.filter((l) => upstreamOf(l))) {
      for (let minor = 29; minor <= NEWEST_MEASURED_CEL_MINOR; minor++) {
        const measured = minor >= CEL_LIBRARIES[library].since;
        if (upstreamOffers(upstreamOf(library)!, minor) !== measured) disagreements.push(`${library} on 1.${minor}`);
      }
    }
    // base.go's IntroducedVersion of the IP and CIDR libraries (1.30) came later than 1.28, which has them (measured)
    expect(disagreements).toStrictEqual(['ipCidr on 1.29', 'ipCidr on 1.30']);
  });

  test("1.37 offers 1.36's libraries: its compatibility version is 1.36, and base.go's 1.37 option (includes()) waits for 1.38", () => {
    expect(celEnvironment('1.37').missing).toStrictEqual([]);
    expect(celEnvironment('1.37').key).toBe(celEnvironment('1.36').key);
    const includes = 'library.Lists(library.ListsVersion(1))';
    expect(
      UPSTREAM_CEL_ENVIRONMENT.baseOpts.find((e) => (e.options as readonly string[]).includes(includes))?.introduced,
    ).toBe('1.37');
    expect([36, 37, 38].map((m) => upstreamOffers(includes, m))).toStrictEqual([false, false, true]);
    // the lists library's version 0 is removed at 1.37: new expressions keep it until the compatibility version is 1.37
    expect([37, 38].map((m) => upstreamOffers('library.Lists(library.ListsVersion(0))', m))).toStrictEqual([
      true,
      false,
    ]);
    for (const version of ['1.36', '1.37'] as const) {
      const checked = checkExpression('[1, 2].includes(2) && [1, 2].isSorted()', { self: DYN }, { version });
      expect(checked.errors.join('\n')).toMatch(/undeclared reference to 'includes'/);
      expect(checked.errors.join('\n')).not.toMatch(/isSorted/);
    }
  });

  test("1.37's cost estimates are 1.36's: cel-go's estimator is unchanged, and the cost cases Kubernetes adds are for functions 1.37 does not offer", () => {
    expect(UPSTREAM_CEL_ENVIRONMENT.cost.celGoCheckerCostChanged).toBe(false);
    expect(UPSTREAM_CEL_ENVIRONMENT.cost.kubernetesCostCasesAdded).toStrictEqual(['includes']);
    for (const name of UPSTREAM_CEL_ENVIRONMENT.cost.kubernetesCostCasesAdded) {
      const checked = checkExpression(`[1].${name}(1)`, {}, { version: '1.37' });
      expect(checked.errors.join('\n')).toMatch(new RegExp(`undeclared reference to '${name}'`));
    }
    expect(costModelOf('1.37')).toBe(costModelOf('1.36'));
  });
});

describe('the built-in fields of 1.37 from the Go types', () => {
  test('every supported version but the vendored 1.32 has an entry, 1.37 from k8s.io/api v0.37.0-beta.0', () => {
    expect(KUBERNETES_VERSIONS.filter((v) => v !== '1.32' && !BUILTIN_FIELDS_MISSING[v])).toStrictEqual([]);
    expect(BUILTIN_FIELDS_MISSING['1.37'].serverVersion).toMatch(
      /^Go types: kubernetes\/api@v0\.37\.0-beta\.0 \([0-9a-f]{12}\)/,
    );
    expect(minorOf('1.37')).toBeGreaterThan(NEWEST_MEASURED_CEL_MINOR);
  });

  test('the Go reader: JSON names, embedded structs merged (`json:",inline"` and 1.37\'s `json:""`), `-` and untagged fields left out', () => {
    const structs = parseGoStructs([
      [
        'type Deployment struct {',
        '\tmetav1.TypeMeta `json:""`',
        '\t// +optional',
        '\tSpec DeploymentSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`',
        '\tRule `json:",inline" protobuf:"bytes,2,opt,name=rule"`',
        '\tHidden string `json:"-"`',
        '\tinternal int',
        '}',
        'type Empty struct{}',
      ].join('\n'),
    ]);
    expect(structs.get('Deployment')).toStrictEqual({ fields: ['spec'], inline: ['metav1.TypeMeta', 'Rule'] });
    expect(structs.get('Empty')).toStrictEqual({ fields: [], inline: [] });
  });
});
