import { DECODING_CASES, DecodingCase } from './decoding-cases';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { decodingIssues } from '../../../lib/apiserver/builtin-validation/decoding';
import { describeEachApiServerVersion } from '../../envtest';
import { dryRunCreate } from '../../support/differential/builtin-dry-run';

/**
 * Strict decoding of built-in objects against the real apiservers of 1.28, 1.32 and 1.36: each case (a valid base
 * object, or the base with one mutation) is created with dryRun=All and fieldValidation=Strict, as kubectl apply
 * sends it. Where the server's decoding refuses it (HTTP 400, `<Kind> in version "<v>" cannot be handled as a
 * <Kind>: …`), ours must refuse it with the same words; where it decodes (accepted, or refused later by validation),
 * ours must find nothing. And the case's own record of the server's words must be what the server says.
 */
const DECODING_ERROR = /cannot be handled as an? \w+: ([\s\S]*)$/;

/** Our decoding errors as the server words them: the unknown fields in one message, other errors alone. */
function ourWords(object: any, version: KubernetesVersion): string | undefined {
  const issues = decodingIssues(object, version);
  if (issues.length === 0) return undefined;
  if (issues[0].message.startsWith('strict decoding error: ')) {
    return `strict decoding error: ${issues.map((i) => i.message.slice('strict decoding error: '.length)).join(', ')}`;
  }
  return issues.map((i) => i.message).join('\n');
}

/** The server's message in our terms (a named Go type we cannot know, a time error's tail we do not word). */
function comparable(c: DecodingCase, server: string | undefined, ours: string | undefined): string | undefined {
  if (server === undefined || ours === undefined) return server;
  if (c.namedType) return server.replace(`of type ${c.namedType.server}`, `of type ${c.namedType.ours}`);
  if (c.prefixOnly && server.startsWith(ours)) return ours;
  return server;
}

describeEachApiServerVersion(
  'strict decoding of built-in objects against the apiserver',
  (plane, version) => {
    test.each(DECODING_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const server = await dryRunCreate(plane(), c.object);
      const decoding = server.code === 400 ? DECODING_ERROR.exec(server.message)?.[1] : undefined;
      // a case that is neither decoded nor refused by the decoding (e.g. a 404) is a broken case
      expect(decoding !== undefined || server.accepted || server.code === 422).toBe(true);
      const ours = ourWords(c.object, version);
      expect({ ours }).toStrictEqual({ ours: comparable(c, decoding, ours) });
      const recorded = c.refused?.[version] ?? c.refused?.all;
      expect({ recorded }).toStrictEqual({ recorded: comparable(c, decoding, recorded) });
    });
  },
  { shared: true },
);
