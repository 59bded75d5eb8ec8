const CDK8S_HEADER = 'Validation failed with the following errors:\n  ';

/**
 * The one report of a failed synth: every problem of every construct (construct-time mistakes, validation
 * errors, the app's policy and evolution findings), each once, as `[construct path] message`, and no
 * stack trace — the construct path says where, a trace through cdk8s would not.
 *
 * @internal
 */
export function synthFailure(error: unknown, outdir: string): Error {
  if (!(error instanceof Error) || !error.message.startsWith(CDK8S_HEADER)) return error as Error;
  const problems = [...new Set(error.message.slice(CDK8S_HEADER.length).split('\n  ').map(atConstructPath))];
  const message = `synth found ${problems.length} problem${problems.length === 1 ? '' : 's'} `
    + `(nothing was written; ${outdir} keeps the last good output):\n  ${problems.join('\n  ')}`;
  const failure = new Error(message);
  failure.stack = `Error: ${message}`;
  return failure;
}

/**
 * App-wide checks run as validations of the app (path `[]`) and name the construct they concern in
 * their message (`[] policy: [chart/pod] …`); they are shown under that construct like every other problem.
 */
function atConstructPath(line: string): string {
  const m = /^\[\] ([a-z]+): \[([^\]]*)\] ([\s\S]*)$/.exec(line);
  return m ? `[${m[2]}] ${m[1]}: ${m[3]}` : line;
}
