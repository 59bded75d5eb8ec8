import { POD_CONTAINER_CASES } from './pod-container-cases';
import { basePodSpec, Mutation, POD_SPEC_CASES } from './pod-spec-cases';
import { plusWorkloads, templateOf } from './pod-spec-plus';
import { errorsOf, formatIssue, Issue } from '../../../lib/apimachinery/issue';
import { podTemplateIssues } from '../../../lib/apiserver/builtin-validation/pod-spec';
import { POD_VALIDATORS } from '../../../lib/apiserver/builtin-validation/pods';
import { describeEachApiServerVersion } from '../../envtest';
import { dryRunCreate } from '../../support/differential/builtin-dry-run';

/**
 * Pod templates against the real apiservers: each case (a valid pod spec plus one mutation) as a Pod and as a
 * Deployment's template (and, for the cases that tell them apart, a Job's and a PodTemplate's), dry-run created; our
 * verdict must name exactly the fields the server names under the pod spec (metadata is ObjectMeta's, and the
 * workload's own fields are its validator's). The validators are called directly (index.ts assembles them).
 */

/** The paths of the annotations ValidatePodSpecificAnnotations checks, as a Pod's. */
const POD_ANNOTATION =
  /^metadata\.annotations[.[](container\.apparmor|(container\.)?seccomp|kubernetes\.io\/config|controller\.kubernetes|scheduler)/;
/** A tolerations annotation Go does not decode: refused at `metadata.annotations` itself, naming the key. */
const UNDECODED_TOLERATIONS = 'metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": ';

type Kind = 'Pod' | 'Deployment' | 'Job' | 'PodTemplate';

/** The cases also tried as a Job's and a PodTemplate's template: restart policies and deadlines differ there. */
const EVERY_KIND = new Set([
  'the valid base',
  'container name UPPER',
  'containerPort 99999',
  'restartPolicy Never',
  'restartPolicy OnFailure',
  'restartPolicy unset',
  'restartPolicy Foo',
  'activeDeadlineSeconds 0',
  'activeDeadlineSeconds 10',
  'template label bad key',
  'template annotation bad key',
  'ephemeralContainers on create',
]);

function templateWith(m: Mutation, restartPolicy?: string): any {
  const spec = basePodSpec();
  if (restartPolicy) spec.restartPolicy = restartPolicy;
  const t = { metadata: { labels: { app: 'a' } }, spec };
  m(spec, t);
  return t;
}

/** The object of `kind` holding the mutated template, where its pod spec is, and our issues on it. */
function build(kind: Kind, m: Mutation, version: any): { object: any; prefix: string; ours: Issue[] } {
  switch (kind) {
    case 'Pod': {
      const t = templateWith(m);
      const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...t.metadata }, spec: t.spec };
      return { object, prefix: 'spec.', ours: POD_VALIDATORS['v1/Pod'](object, version) };
    }
    case 'PodTemplate': {
      const object = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't' }, template: templateWith(m) };
      return { object, prefix: 'template.', ours: POD_VALIDATORS['v1/PodTemplate'](object, version) };
    }
    case 'Deployment': {
      const t = templateWith(m);
      const object = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { selector: { matchLabels: { app: 'a' } }, template: t },
      };
      const options = { restartPolicies: ['Always'], activeDeadlineSecondsUnsupportedIn: 'ReplicaSet' };
      return { object, prefix: 'spec.template.', ours: podTemplateIssues(t, 'spec.template', version, options) };
    }
    case 'Job': {
      const t = templateWith(m, 'Never');
      const object = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: t } };
      const options = { restartPolicies: ['OnFailure', 'Never'] };
      return { object, prefix: 'spec.template.', ours: podTemplateIssues(t, 'spec.template', version, options) };
    }
  }
}

describeEachApiServerVersion(
  'pod templates against the apiserver',
  (plane, version) => {
    beforeAll(async () => {
      // the ServiceAccount admission refuses Pods of a namespace without its `default` account (no controllers here)
      const r = await plane().request('POST', '/api/v1/namespaces/default/serviceaccounts', {
        metadata: { name: 'default' },
      });
      expect([201, 409]).toContain(r.code);
    });

    test.each([...POD_SPEC_CASES, ...POD_CONTAINER_CASES])('%s', async (name, m) => {
      const kinds: Kind[] = EVERY_KIND.has(name) ? ['Pod', 'Deployment', 'Job', 'PodTemplate'] : ['Pod', 'Deployment'];
      for (const kind of kinds) {
        const { object, prefix, ours } = build(kind, m, version);
        const errors = errorsOf(ours);
        const server = await dryRunCreate(plane(), object);
        const shown = { kind, server: server.message, ours: errors.map((i) => formatIssue(i)) };
        // (a 500 for an empty runtimeClassName: the RuntimeClass admission looks up a class without a name)
        if (server.code === 403 || (server.code === 500 && kind === 'Pod')) {
          // a Pod refused by admission before validation, for a referenced object the namespace lacks (a
          // ServiceAccount, PriorityClass or RuntimeClass): not comparable, the Deployment's template of the same
          // case is (templates are not admitted so)
          expect({ kind, message: server.message }).toMatchObject({
            kind: 'Pod',
            message: expect.stringMatching(
              /service account|PriorityClass|RuntimeClass|PreemptionPolicy|resource name may not be empty/,
            ),
          });
        } else if (/strict decoding/.test(server.message)) {
          // a field this version does not have: decoding.ts's, not ours
          expect({ ...shown, fields: errors.map((i) => i.path) }).toStrictEqual({ ...shown, fields: [] });
        } else {
          // a Pod's spec itself (`spec`: a HostProcess pod's containers) is the pod spec's too
          // and a Pod's annotations the pod spec's validation reads (ValidatePodSpecificAnnotations)
          const fields = server.fields
            .filter(
              (f) =>
                f.startsWith(prefix) ||
                (kind === 'Pod' &&
                  (f === 'spec' ||
                    POD_ANNOTATION.test(f) ||
                    (f === 'metadata.annotations' && server.message.includes(UNDECODED_TOLERATIONS)))),
            )
            .sort();
          // refused without such fields only for the metadata (ObjectMeta's) or the workload's own fields
          if (!server.accepted && fields.length === 0) expect(server.fields.length).toBeGreaterThan(0);
          expect({ ...shown, fields: errors.map((i) => i.path).sort() }).toStrictEqual({ ...shown, fields });
        }
      }
    });

    test('cdk8s-plus-28 workloads: accepted by both', async () => {
      const workloads = plusWorkloads();
      expect(workloads.map((o) => o.kind).sort()).toEqual(['CronJob', 'DaemonSet', 'Deployment', 'Job', 'StatefulSet']);
      for (const o of workloads) {
        const { template, path, restartPolicies } = templateOf(o);
        const ours = errorsOf(podTemplateIssues(template, path, version, { restartPolicies })).map((i) =>
          formatIssue(i),
        );
        const server = await dryRunCreate(plane(), o);
        expect({ kind: o.kind, server: server.message, ours }).toStrictEqual({ kind: o.kind, server: '', ours: [] });
      }
    });
  },
  { shared: true },
);
