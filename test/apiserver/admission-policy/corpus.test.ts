import {
  BINDINGS,
  CORPUS,
  CorpusPolicy,
  corpusManifest,
  expectedOn,
  GADGET_CRD,
  normalise,
  policyApiVersionOn,
  WIDGET_CRD,
} from './corpus';
import {
  clusterResolver,
  typeCheckPolicy,
  validateBindingManifest,
  validatePolicyManifest,
  ValidatingAdmissionPolicyBindingManifest,
} from '../../../lib/apiserver/admission-policy';
import { describeEachApiServerVersion, OracleVersion } from '../../envtest';

/**
 * Every corpus policy on kube-apiserver v1.28.15 (admissionregistration.k8s.io/v1beta1, behind the
 * ValidatingAdmissionPolicy feature gate, turned on here), v1.32.13 and v1.36.3 with kube-controller-manager's
 * validatingadmissionpolicy-status-controller: what the server refuses at create (each cause, field and message)
 * must be what `validatePolicyManifest` reports, and for an accepted policy the `status.typeChecking.expressionWarnings`
 * the controller writes must be what `typeCheckPolicy` computes. Messages are compared whole except for two things
 * the local checker cannot reproduce: the per-process number the server appends to type names
 * (`Deployment950894724.spec`), and the wording of syntax errors (ANTLR's), which both sides mark `Syntax error:`
 * (ANTLR recovers and may report several in a row where the local parser stops at the first: a run counts as one).
 */

/** 1.28 serves admission policies only as v1beta1 behind a feature gate (off by default): both turned on. */
const GATED_ON_1_28 = {
  apiServerFlags: [
    '--feature-gates=ValidatingAdmissionPolicy=true',
    '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
  ],
  controllerManagerFlags: ['--feature-gates=ValidatingAdmissionPolicy=true'],
};

describeEachApiServerVersion(
  "ValidatingAdmissionPolicy corpus: our verdicts = the apiserver's of each version",
  (plane, version: OracleVersion) => {
    const group = `/apis/${policyApiVersionOn(version)}`;
    const POLICIES = `${group}/validatingadmissionpolicies`;
    beforeAll(async () => {
      // the status controller checks a CRD's kinds only once its schema is published in /openapi/v3
      const deadline = Date.now() + 60_000;
      const published = async () => {
        const doc = await plane().request('GET', '/openapi/v3/apis/corpus.example.com/v2');
        return (
          (await plane().request('GET', '/openapi/v3/apis/corpus.example.com/v1')).code === 200 && doc.code === 200
        );
      };
      while (!(await published())) {
        if (Date.now() > deadline) throw new Error('the corpus CRDs were never published in /openapi/v3');
        await new Promise((r) => setTimeout(r, 250));
      }
    }, 90_000);

    const compare = async (p: CorpusPolicy) => {
      const manifest = corpusManifest(p, version);
      const oursAtCreate = validatePolicyManifest(manifest, version).map((i) => `${i.path}: ${normalise(i.message)}`);
      const reply = await plane().request('POST', POLICIES, manifest);
      if (reply.code !== 201) {
        expect(reply.code).toBe(422);
        const causes = (reply.body.details?.causes ?? []).map(
          (c: { field: string; message: string }) => `${c.field}: ${normalise(c.message)}`,
        );
        expect(oursAtCreate).toStrictEqual(causes);
        expect(expectedOn(p, version)).toBe('refused');
        return;
      }
      expect(oursAtCreate).toStrictEqual([]);
      let status: any;
      const deadline = Date.now() + 30_000;
      do {
        const got = await plane().request('GET', `${POLICIES}/${manifest.metadata.name}`);
        if (got.body.status?.observedGeneration === got.body.metadata.generation) status = got.body.status;
        else await new Promise((r) => setTimeout(r, 200));
      } while (!status && Date.now() < deadline);
      expect(status).toBeDefined();
      const serverWarnings = (status.typeChecking?.expressionWarnings ?? []).map(
        (w: { fieldRef: string; warning: string }) => ({ fieldRef: w.fieldRef, warning: normalise(w.warning) }),
      );
      const ours = typeCheckPolicy(manifest, clusterResolver([WIDGET_CRD, GADGET_CRD]), version);
      expect(ours.warnings.map((w) => ({ fieldRef: w.fieldRef, warning: normalise(w.warning) }))).toStrictEqual(
        serverWarnings,
      );
      expect(expectedOn(p, version)).toBe(serverWarnings.length > 0 ? 'warned' : 'accepted');
    };
    const agreed = CORPUS.filter((p) => !p.knownGapOn?.[version]);
    const gaps = CORPUS.filter((p) => p.knownGapOn?.[version]);
    test.each(agreed.map((p) => [p.name, p] as const))('%s', (_name, p) => compare(p), 60_000);
    if (gaps.length > 0) {
      // known gaps fail today: once one is closed its test fails here and its knownGapOn entry must go
      test.failing.each(gaps.map((p) => [p.name, p.knownGapOn![version]!, p] as const))(
        '%s (known gap: %s)',
        (_name, _why, p) => compare(p),
        60_000,
      );
    }

    test.each(BINDINGS.map((b) => [b.metadata.name, b] as const))(
      'binding %s',
      async (_name, given: ValidatingAdmissionPolicyBindingManifest) => {
        const binding = { ...given, apiVersion: policyApiVersionOn(version) };
        const ours = validateBindingManifest(binding, version).map((i) => `${i.path}: ${i.message}`);
        const reply = await plane().request('POST', `${group}/validatingadmissionpolicybindings?dryRun=All`, binding);
        const server =
          reply.code === 201
            ? []
            : (reply.body.details?.causes ?? []).map(
                (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
              );
        if (reply.code !== 201) expect(reply.code).toBe(422);
        expect(ours).toStrictEqual(server);
      },
    );
  },
  (version) => ({
    shared: true,
    controllerManager: ['validatingadmissionpolicy-status-controller'],
    crds: [WIDGET_CRD, GADGET_CRD],
    ...(version === '1.28' ? GATED_ON_1_28 : {}),
  }),
);
