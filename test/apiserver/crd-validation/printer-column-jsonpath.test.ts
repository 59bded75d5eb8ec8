import { get } from 'node:https';
import { printerColumnJsonPathError } from '../../../lib/apiserver/crd-validation/kubectl-jsonpath';
import { ControlPlane, describeRealApiServer } from '../../envtest';

/**
 * Printer-column JSONPaths, path by path against the real apiserver. It accepts every CRD below (it only checks
 * the leading dot); the verdict shows in `kubectl get`: a column whose path its JSONPath parser refuses is
 * dropped from the table, and so is every column after it. Each candidate gets a CRD version of its own with the
 * columns [candidate, After]; the version's table keeps "After" exactly when the path parses.
 */
const CANDIDATES = [
  // parsed
  '.spec.a',
  '.',
  '.a.',
  '.$',
  '.a b',
  '.a}b',
  '.a..b',
  '.a[*]',
  '.a[]',
  '.a[-1]',
  '.a[1:2]',
  '.a[1:2:3]',
  '.a[:]',
  '.a[0,1]',
  '.a[,]',
  ".a['b']",
  ".metadata.labels['app\\.kubernetes\\.io/name']",
  '.metadata.labels.app\\.kubernetes\\.io/name',
  '.a\\.b',
  '.status.conditions[?(@.type=="Ready")].status',
  ".status.conditions[?(@.type == 'Ready')].status",
  '.a[?(@.x)]',
  '.a[?(@.x=~"b")]',
  '.a[?(@.x>1.5)]',
  '.a[?(@.x==-1)]',
  '.a[?(@.x==true)]',
  '.a[?(@.x!="b")].c',
  '.a[?(@.x=="b\\"c")]',
  '.*',
  '.a.*.b',
  '.a[?(@.x=="")]',
  '.a["b"c]',
  '.spec.\u00e4\u00f6',
  '.a[?(@..x)]',
  // refused
  '.status.conditions[?(@.type=="Ready").status',
  '.a[',
  '.a]',
  '.a[0',
  '.a[?(@.x)',
  '.a{',
  '.{.a}',
  '.a,b',
  '.a[x]',
  '.a["b"]',
  '.a["b',
  '.a[?(@.x==1 && @.y)]',
  '.a[?(@.x==)]',
  '.a....b',
  '.a[1.5]',
  '.a[?(@.x==1.2.3)]',
  ".a[?(@.x=='b\\'c')]",
  '.a[?(@.x=="\\q")]',
  '.a*',
  '.a[1:x]',
  '.a[0,x]',
  ".a['b',x]",
  '.a(b)',
  '.a\tb',
  '.a[?(@.x=="y"]',
  '.a[?(@.x=="b\\\\"c")]',
  '.a[99999999999999999999]',
];

const GROUP = 'columns.example.com';
const versionName = (i: number) => `c${i}`;

describeRealApiServer(
  'printer-column JSONPaths on kube-apiserver',
  (plane) => {
    beforeAll(async () => {
      await plane().installCrds([
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `widgets.${GROUP}` },
          spec: {
            group: GROUP,
            scope: 'Namespaced',
            names: { kind: 'Widget', plural: 'widgets' },
            versions: CANDIDATES.map((jsonPath, i) => ({
              name: versionName(i),
              served: true,
              storage: i === 0,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              additionalPrinterColumns: [
                { name: 'Candidate', type: 'string', jsonPath },
                { name: 'After', type: 'string', jsonPath: '.spec.b' },
              ],
            })),
          },
        },
      ]);
      const created = await plane().request('POST', `/apis/${GROUP}/${versionName(0)}/namespaces/default/widgets`, {
        apiVersion: `${GROUP}/${versionName(0)}`,
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { a: 'A', b: 'B' },
      });
      expect(created.code).toBe(201);
    }, 60_000);

    test('the candidates include paths of both verdicts', () => {
      const refused = CANDIDATES.filter((p) => printerColumnJsonPathError(p) !== undefined);
      expect(refused.length).toBeGreaterThan(20);
      expect(CANDIDATES.length - refused.length).toBeGreaterThan(20);
    });

    test.each(CANDIDATES.map((p, i) => [p, i] as const))(
      '%s: refused exactly where kubectl get drops the column',
      async (jsonPath, i) => {
        const columns = await tableColumns(plane(), `/apis/${GROUP}/${versionName(i)}/namespaces/default/widgets`);
        const apiserver = columns.includes('After') ? 'parsed' : 'refused';
        expect({
          jsonPath,
          verdict: printerColumnJsonPathError(jsonPath) === undefined ? 'parsed' : 'refused',
        }).toStrictEqual({ jsonPath, verdict: apiserver });
      },
      30_000,
    );
  },
  { shared: true },
);

/** The column names of a list as a server-side Table (what kubectl get prints). */
function tableColumns(plane: ControlPlane, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const headers = {
      Authorization: `Bearer ${plane.admin.token}`,
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    };
    get(new URL(path, plane.url), { ca: plane.ca, headers }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => {
        const table = JSON.parse(text);
        if (table.kind !== 'Table') reject(new Error(`not a Table: ${text.slice(0, 300)}`));
        else resolve(table.columnDefinitions.map((c: { name: string }) => c.name));
      });
    }).on('error', reject);
  });
}
