/**
 * One problem found while checking a definition or a resource, located by a field path
 * in the apiserver's own notation (e.g. `spec.versions[0].schema.openAPIV3Schema.properties.spec`).
 */
export interface Issue {
  /** Field path of the offending value. */
  readonly path: string;
  /** What is wrong, lowercase, in the spirit of the apiserver's wording. */
  readonly message: string;
  /** The offending value, when there is one to show. */
  readonly value?: unknown;
  /** Warnings do not fail synth. @default 'error' */
  readonly severity?: 'error' | 'warning';
  /**
   * Our explanation, shown after the message in parentheses: the message itself is the apiserver's own wording,
   * word for word, so that a user can compare it with what the cluster says.
   * @default - none
   */
  readonly hint?: string;
}

/** `path: message (got <value>)`, the one format every synth-time check uses. */
export function formatIssue(issue: Issue): string {
  // the value once: messages that already quote it (e.g. a detail built from it) get no `(got …)`
  const shown = issue.value === undefined ? undefined : preview(issue.value);
  const distinctive = typeof issue.value === 'string' || (typeof issue.value === 'object' && issue.value !== null);
  const quoted =
    shown !== undefined &&
    (issue.message.startsWith(`Invalid value: ${shown}`) ||
      (distinctive && shown.length >= 3 && issue.message.includes(shown)));
  const got = shown === undefined || quoted ? '' : ` (got ${shown})`;
  const hint = issue.hint ? ` (${issue.hint})` : '';
  return `${issue.path}: ${issue.message}${hint}${got}`;
}

/** Only the errors of a list of issues. @internal */
export function errorsOf(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => (i.severity ?? 'error') === 'error');
}

/** Only the warnings of a list of issues. @internal */
export function warningsOf(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => i.severity === 'warning');
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
