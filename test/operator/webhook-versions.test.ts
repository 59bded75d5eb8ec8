import { Chart, Testing } from 'cdk8s';
import { Operator } from '../../lib';
import { fieldsUnknownTo } from '../../lib/apiserver/admission-policy/builtin-fields';
import { matchConditionProblems } from '../../lib/operator/webhook-match-conditions';
import { declareTargetVersions } from '../../lib/synth-metadata/target-versions';
import { describeEachApiServerVersion } from '../envtest';
import { FakeCrd } from './crd-double';

/**
 * The webhook configurations an operator emits, by Kubernetes version: their fields against each version's OpenAPI
 * and their matchConditions against each version's CEL environment, every verdict compared with the apiserver of
 * 1.28, 1.32 and 1.36 (created with strict field validation: an unknown field or a condition that does not compile
 * is refused); on each, matchConditions are kept (1.28 and 1.29 have them in beta, on by default).
 */
function configurations(
  range?: { min: string; max: string },
  conditions = [{ name: 'not-dry', expression: '!request.dryRun' }],
): any[] {
  const app = Testing.app();
  if (range) declareTargetVersions(app, range);
  const chart = new Chart(app, 'test');
  const db = new FakeCrd(chart, 'db', { group: 'database.example.com', kind: 'SampleDB', plural: 'sampledbs' });
  new Operator(chart, 'db-operator', {
    crds: [db],
    image: 'ghcr.io/acme/db:0.1.0',
    replicas: 2,
    watchNamespaces: ['team-a'],
    contract: {
      status: true,
      leaderElection: true,
      watches: [db],
      webhooks: [
        {
          for: db,
          type: 'validating',
          matchConditions: conditions,
          objectSelector: { matchLabels: { managed: 'yes' } },
        },
        { for: db, type: 'defaulting', matchConditions: conditions },
      ],
    } as any,
  });
  return Testing.synth(chart).filter((o) => /WebhookConfiguration$/.test(o.kind));
}

/** Conditions whose verdict differs between versions, and two every version refuses. */
const CONDITIONS: ReadonlyArray<{ readonly name: string; readonly expression: string }> = [
  { name: 'plain', expression: "!request.dryRun && request.userInfo.username != 'system:admin'" },
  { name: 'authorizer', expression: "authorizer.group('').resource('pods').check('create').allowed()" },
  { name: 'optional', expression: 'object.?metadata.?labels.orValue({}).size() >= 0' },
  { name: 'quantity', expression: "quantity('1Gi').isGreaterThan(quantity('1Mi'))" },
  { name: 'sets', expression: "sets.contains(['a', 'b'], ['a'])" },
  { name: 'format', expression: '!format.dns1123Label().validate(object.metadata.name).hasValue()' },
  { name: 'bad-regex', expression: "object.metadata.name.matches('[')" },
  { name: 'not-bool', expression: 'request.name' },
  { name: 'typo', expression: "request.userInfo.usrname == 'x'" },
];

describe('matchConditions by version at synth', () => {
  test("a condition outside an older version's CEL environment fails synth naming those versions only", () => {
    let message = '';
    try {
      configurations({ min: '1.28', max: '1.36' }, [
        { name: 'q', expression: "quantity('1Gi').isGreaterThan(quantity('1Mi'))" },
      ]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(
      "[test/db-operator/Webhooks] on Kubernetes 1.28: contract.webhooks[0].matchConditions[0].expression: does not compile: ERROR: <input>:1:9: undeclared reference to 'quantity' (in container '')",
    );
    expect(message).not.toMatch(/on Kubernetes [^:]*1\.29/);
    expect(
      configurations({ min: '1.29', max: '1.36' }, [
        { name: 'q', expression: "quantity('1Gi').isGreaterThan(quantity('1Mi'))" },
      ]),
    ).toHaveLength(2);
  });
});

describeEachApiServerVersion(
  'webhook configurations on kube-apiserver',
  (plane, version) => {
    const create = async (object: any, dryRun: boolean) => {
      const path = `/apis/admissionregistration.k8s.io/v1/${object.kind.toLowerCase()}s?fieldValidation=Strict${dryRun ? '&dryRun=All' : ''}`;
      return plane().request('POST', path, object);
    };

    test.each(CONDITIONS.map((c) => [c.name, c] as const))(
      'matchConditions %s: refused exactly where our check refuses it',
      async (_name, condition) => {
        const [validating] = configurations(undefined);
        const object = {
          ...validating,
          metadata: { name: `versions-${condition.name}` },
          webhooks: validating.webhooks.map((w: any) => ({ ...w, matchConditions: [condition] })),
        };
        const ours = [
          ...matchConditionProblems([condition], 'matchConditions', [version]),
          ...fieldsUnknownTo(object, version),
        ];
        const reply = await create(object, true);
        expect({ refused: reply.code !== 201, code: reply.code }).toStrictEqual({
          refused: ours.length > 0,
          code: ours.length > 0 ? 422 : 201,
        });
      },
    );

    test('the configurations the operator emits are created with every field kept (matchConditions too)', async () => {
      for (const object of configurations(undefined)) {
        expect(fieldsUnknownTo(object, version)).toStrictEqual([]);
        const reply = await create(object, false);
        expect(reply.code).toBe(201);
        const got = await plane().request(
          'GET',
          `/apis/admissionregistration.k8s.io/v1/${object.kind.toLowerCase()}s/${object.metadata.name}`,
        );
        expect(got.body.webhooks.map((w: any) => w.matchConditions)).toStrictEqual(
          object.webhooks.map((w: any) => w.matchConditions),
        );
        // (an absent objectSelector is defaulted to {})
        expect(got.body.webhooks.map((w: any) => w.objectSelector)).toStrictEqual(
          object.webhooks.map((w: any) => w.objectSelector ?? {}),
        );
      }
    });
  },
  { shared: true },
);
