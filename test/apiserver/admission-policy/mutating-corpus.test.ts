import { normalise } from './corpus';
import { MUTATING_BINDINGS, MUTATING_CORPUS } from './mutating-corpus';
import {
  MutatingAdmissionPolicyBindingSpec,
  MutatingAdmissionPolicySpec,
  validateMutatingBindingManifest,
  validateMutatingPolicyManifest,
} from '../../../lib/apiserver/admission-policy';
import { describeApiServerVersion } from '../../envtest';

/**
 * Every mutating corpus policy and binding created on kube-apiserver v1.36.3 (admissionregistration.k8s.io/v1, served
 * by default): what the server refuses (each cause, field and message; syntax errors' ANTLR wording aside) must be what
 * `validateMutatingPolicyManifest` / `validateMutatingBindingManifest` report, and nothing for what it accepts.
 */
const GROUP = '/apis/admissionregistration.k8s.io/v1';

describeApiServerVersion(
  "MutatingAdmissionPolicy corpus: our verdicts at create = the apiserver's",
  '1.36',
  (plane) => {
    test.each(Object.entries(MUTATING_CORPUS))(
      '%s',
      async (name, spec: MutatingAdmissionPolicySpec) => {
        const manifest = {
          apiVersion: 'admissionregistration.k8s.io/v1' as const,
          kind: 'MutatingAdmissionPolicy' as const,
          metadata: { name: `corpus-${name}` },
          spec,
        };
        const ours = validateMutatingPolicyManifest(manifest, '1.36').map((i) => `${i.path}: ${normalise(i.message)}`);
        const reply = await plane().request('POST', `${GROUP}/mutatingadmissionpolicies`, manifest);
        if (reply.code !== 201) expect(reply.code).toBe(422);
        const server =
          reply.code === 201
            ? []
            : (reply.body.details?.causes ?? []).map(
                (c: { field: string; message: string }) => `${c.field}: ${normalise(c.message)}`,
              );
        expect(ours).toStrictEqual(server);
      },
      30_000,
    );

    test.each(Object.entries(MUTATING_BINDINGS))(
      'binding %s',
      async (name, spec: MutatingAdmissionPolicyBindingSpec) => {
        const manifest = {
          apiVersion: 'admissionregistration.k8s.io/v1' as const,
          kind: 'MutatingAdmissionPolicyBinding' as const,
          metadata: { name: `corpus-${name}` },
          spec,
        };
        const ours = validateMutatingBindingManifest(manifest, '1.36').map((i) => `${i.path}: ${i.message}`);
        const reply = await plane().request('POST', `${GROUP}/mutatingadmissionpolicybindings?dryRun=All`, manifest);
        if (reply.code !== 201) expect(reply.code).toBe(422);
        const server =
          reply.code === 201
            ? []
            : (reply.body.details?.causes ?? []).map(
                (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
              );
        expect(ours).toStrictEqual(server);
      },
      30_000,
    );
  },
);
