import { errorsOf } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { ControlPlane } from '../../envtest';
import { dryRunCreate } from '../../support/differential/builtin-dry-run';

/** How much of the server's answer a case compares beyond the verdict. */
export interface Compare {
  /** The server's causes' fields, as a multiset (off where the server answers without causes). @default true */
  readonly fields?: boolean;
  /** Each of our errors' `path: message` in the server's message, word for word. @default true */
  readonly wording?: boolean;
  /** The namespace the request goes to. @default 'default' */
  readonly namespace?: string;
}

/**
 * The differences between a real apiserver's answer to a dry-run create of `object` and synth's: empty when they
 * agree (the verdict, the fields of the server's causes, and our messages found word for word in the server's).
 */
export async function differences(
  plane: ControlPlane,
  object: any,
  version: KubernetesVersion,
  compare: Compare = {},
): Promise<string[]> {
  const server = await dryRunCreate(plane, object, compare.namespace);
  const ours = errorsOf(builtinObjectIssues(object, version));
  const out: string[] = [];
  const show = () =>
    `server: ${server.code} ${server.message.slice(0, 600)}; ours: ${JSON.stringify(ours).slice(0, 600)}`;
  if (server.accepted !== (ours.length === 0)) return [`verdicts differ: ${show()}`];
  if (server.accepted) return out;
  if (compare.fields !== false) {
    const a = [...server.fields].sort();
    const b = ours.map((i) => i.path).sort();
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push(`fields differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}; ${show()}`);
    }
  }
  if (compare.wording !== false) {
    for (const i of ours) {
      if (!server.message.includes(`${i.path}: ${i.message}`)) {
        out.push(`wording: "${i.path}: ${i.message}" not in ${show()}`);
      }
    }
  }
  return out;
}
